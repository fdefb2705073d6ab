// A valijson custom keyword that evaluates `pattern` with RE2 instead of
// std::regex: linear time and no recursion, so a long untrusted string
// cannot blow the stack. normalize.cc renames `pattern` to kPatternKeyword.
#pragma once

// valijson reports schema errors by exception (caught at compile()); without
// this it prints and aborts.
#ifndef VALIJSON_USE_EXCEPTIONS
#define VALIJSON_USE_EXCEPTIONS 1
#endif

#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <re2/re2.h>
#include <valijson/constraint_builder.hpp>
#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/validation_results.hpp>

namespace toolwire::tools::schema_detail {

inline constexpr const char* kPatternKeyword = "x-toolwire-pattern";

class Re2PatternConstraint : public valijson::constraints::PolyConstraint {
 public:
  explicit Re2PatternConstraint(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isString()) return true;  // pattern only constrains strings
    std::string s = target.getString();
    if (re2::RE2::PartialMatch(s, *re_)) return true;
    if (results)
      results->pushError(context, "String does not match pattern '" + re_->pattern() + "'.");
    return false;
  }

 private:
  Constraint* cloneInto(void* mem) const override { return new (mem) Re2PatternConstraint(*this); }
  size_t sizeOf() const override { return sizeof(Re2PatternConstraint); }
  std::shared_ptr<const re2::RE2> re_;
};

// Translates the ECMA-262 escapes RE2 spells differently; returns false when
// the pattern uses what RE2 cannot do (lookaround, backreferences).
std::string ecma_to_re2(const std::string& pattern);

class Re2PatternBuilder : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override {
    std::string pattern;
    if (!value.getString(pattern)) throw std::runtime_error("pattern must be a string");
    re2::RE2::Options opts;
    opts.set_log_errors(false);
    auto re = std::make_shared<const re2::RE2>(ecma_to_re2(pattern), opts);
    if (!re->ok()) throw std::runtime_error("invalid pattern '" + pattern + "': " + re->error());
    return new Re2PatternConstraint(std::move(re));
  }
};

}  // namespace toolwire::tools::schema_detail
