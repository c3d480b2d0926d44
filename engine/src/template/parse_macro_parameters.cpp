// SPDX-License-Identifier: MIT
// A macro's or a call block's parameters: their names, defaults and the rules on their order.
#include "template/parser_state.hpp"
#include "zeroforge/error.hpp"

namespace zf::detail {

// `(a, b=1, ...)` of a macro or a call block, into `node.params`.
void Parser::parse_parameters(MacroStmt& node) {
  expect(TokenKind::LeftParen, "after the macro name");
  bool seen_default = false;
  while (!at(TokenKind::RightParen)) {
    if (!node.params.empty()) expect(TokenKind::Comma, "between macro parameters");
    if (at(TokenKind::RightParen)) break;
    std::size_t param_offset = current().offset;
    MacroParam param{expect_name("a parameter name"), nullptr};
    for (const auto& earlier : node.params) {
      if (earlier.name == param.name)
        fail_at(param_offset,
                "duplicate parameter '" + param.name + "' in macro '" + node.target.name + "'");
    }
    if (skip(TokenKind::Assign)) {
      param.default_value = parse_expression();
      seen_default = true;
    } else if (seen_default) {
      fail_at(param_offset,
              "parameter '" + param.name + "' without a default follows one with a default");
    }
    node.params.push_back(std::move(param));
  }
  advance();  // )
}

}  // namespace zf::detail
