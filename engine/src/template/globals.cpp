// SPDX-License-Identifier: MIT
// The builtin global functions: `range` and `dict` from Jinja2 3.1's DEFAULT_NAMESPACE, one
// registration table at the end.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "template/namespace_object.hpp"
#include "template/python_ops.hpp"
#include "zeroforge/environment.hpp"
#include "zeroforge/error.hpp"

namespace zf {
namespace {

using detail::fail;

// Jinja2's sandbox limit (sandbox.MAX_RANGE): a template must not build a list so large that
// rendering runs out of memory instead of failing with an error.
constexpr std::uint64_t kMaxRange = 100000;

// Python's range(start, stop, step): a range value, its items listed (bounded as above).
Value global_range(const Value&, Arguments& args, const CallContext&) {
  if (!args.extra_keywords.empty()) fail("range() takes no keyword arguments");
  const auto& given = args.extra_positional;
  if (given.empty()) fail("range expected at least 1 argument, got 0");
  if (given.size() > 3) {
    fail("range expected at most 3 arguments, got " + std::to_string(given.size()));
  }
  std::int64_t start = 0, stop, step = 1;
  if (given.size() == 1) {
    stop = detail::to_index(given[0]);
  } else {
    start = detail::to_index(given[0]);
    stop = detail::to_index(given[1]);
    if (given.size() == 3) step = detail::to_index(given[2]);
  }
  if (step == 0) fail("range() arg 3 must not be zero");
  // The length in unsigned arithmetic: stop - start may not fit in int64.
  std::uint64_t length = 0;
  if (step > 0 && start < stop) {
    std::uint64_t span = static_cast<std::uint64_t>(stop) - static_cast<std::uint64_t>(start);
    length = (span - 1) / static_cast<std::uint64_t>(step) + 1;
  } else if (step < 0 && start > stop) {
    std::uint64_t span = static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(stop);
    length = (span - 1) / (0 - static_cast<std::uint64_t>(step)) + 1;
  }
  if (length > kMaxRange) {
    fail("range too big: " + std::to_string(length) + " items, the limit is " +
         std::to_string(kMaxRange));
  }
  ValueList out;
  out.reserve(static_cast<std::size_t>(length));
  std::int64_t current = start;
  for (std::uint64_t i = 0; i < length; ++i) {
    out.emplace_back(current);
    current = static_cast<std::int64_t>(static_cast<std::uint64_t>(current) +
                                        static_cast<std::uint64_t>(step));
  }
  return Value::range(start, stop, step, std::move(out));
}

// Python's dict(mapping_or_pairs, **kwargs). zeroforge dicts have string keys only.
Value global_dict(const Value&, Arguments& args, const CallContext&) {
  const auto& given = args.extra_positional;
  if (given.size() > 1) {
    fail("dict expected at most 1 argument, got " + std::to_string(given.size()));
  }
  ValueDict out;
  auto set = [&](const Value& key, Value value) {
    if (!key.is_string()) {
      key.require_defined();
      fail(std::string("dict keys must be strings, got ") + key.type_name() + " " + key.repr());
    }
    out.set(key.as_string(), std::move(value));
  };
  if (!given.empty()) {
    const Value& source = given[0];
    if (source.is_dict()) {
      out = source.as_dict();
    } else {
      ValueList storage;
      const ValueList& pairs = detail::iterate(source, storage);
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const Value& pair = pairs[i];
        if (!pair.is_list() && !pair.is_string() && !pair.is_dict()) {
          pair.require_defined();
          fail("cannot convert dictionary update sequence element #" + std::to_string(i) +
               " to a sequence");
        }
        ValueList pair_storage;
        const ValueList& items = detail::iterate(pair, pair_storage);
        if (items.size() != 2) {
          fail("dictionary update sequence element #" + std::to_string(i) + " has length " +
               std::to_string(items.size()) + "; 2 is required");
        }
        set(items[0], items[1]);
      }
    }
  }
  for (auto& [key, value] : args.extra_keywords) out.set(key, value);
  return Value(std::move(out));
}

// Jinja2's namespace(...): takes what dict() takes and makes a Namespace of it.
Value global_namespace(const Value& self, Arguments& args, const CallContext& context) {
  Value attributes = global_dict(self, args, context);
  return Value(std::make_shared<detail::Namespace>(attributes.as_dict()));
}

std::vector<FunctionSpec> builtin_globals() {
  return {
      {"dict", {}, true, global_dict},
      {"namespace", {}, true, global_namespace},
      {"range", {}, true, global_range},
  };
}

}  // namespace

void register_builtin_globals(FunctionRegistry& registry) {
  for (auto& spec : builtin_globals()) registry.add(FunctionKind::Global, std::move(spec));
}

}  // namespace zf
