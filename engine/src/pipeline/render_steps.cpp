// SPDX-License-Identifier: MIT
// Steps 3 and 4 of the one-template pipeline (render, validate) and render(), which runs
// every step and turns whatever stops it into diagnostics.
#include <utility>

#include "zeroforge/output.hpp"
#include "zeroforge/pipeline.hpp"

namespace zf {

RenderedConfig render_config(ConfigSession& session, const PreparedValues& values) {
  const Template& tpl = session.config_template();
  RenderedConfig out;
  const Value context = Value::from_json(values.values.merged());
  out.json = tpl.is_json();
  if (out.json) {
    out.config =
        session.plugins()
            .run_output_hooks(tpl.render_json(context), values.values.merged(), values.hook_context)
            .config;
    out.text = to_json_text(out.config);
  } else {
    out.text = tpl.render(context);
  }
  out.messages = session.take_plugin_messages();
  return out;
}

Outcome ValidatedConfig::outcome() const noexcept {
  return has_errors(findings) ? Outcome::Refused : Outcome::Done;
}

ValidatedConfig validate_rendered(const ConfigSession& session, const PreparedValues& values,
                                  const RenderedConfig& rendered, const std::string& label) {
  ValidatedConfig out;
  out.checked =
      rendered.json && validates(session.request().validation, session.defaults().contract);
  if (out.checked) {
    out.findings = validate_config(rendered.config, values.validate, label);
  }
  return out;
}

namespace {

void append(std::vector<Diagnostic>& to, std::vector<Diagnostic> from) {
  for (auto& d : from) to.push_back(std::move(d));
}

}  // namespace

RenderResult render(const ConfigRequest& request) {
  RenderResult result;
  std::vector<Diagnostic>& out = result.diagnostics;
  // Without a sink of the caller's, plugin messages are collected here as they are logged,
  // so that those logged before an exception are kept too.
  ConfigRequest own = request;
  if (!own.on_diagnostic) own.on_diagnostic = [&out](const Diagnostic& d) { out.push_back(d); };
  try {
    ConfigSession session = open_config(std::move(own));
    PreparedValues values = prepare_values(session);
    const Outcome prepared = values.outcome();
    append(out, std::move(values.problems));
    append(out, std::move(values.refusals));
    append(out, std::move(values.warnings));
    result.outcome = prepared;
    if (prepared == Outcome::Done) {
      RenderedConfig rendered = render_config(session, values);
      ValidatedConfig validated =
          validate_rendered(session, values, rendered, request.template_name);
      result.outcome = validated.outcome();
      result.findings = std::move(validated.findings);
      result.json = rendered.json;
      if (result.outcome == Outcome::Done) {
        result.config = std::move(rendered.config);
        result.text = std::move(rendered.text);
      }
    }
  } catch (const Error& error) {
    out.push_back(to_diagnostic(error));
    result.outcome = Outcome::Failed;
  }
  return result;
}

}  // namespace zf
