#include "script/variables.h"

namespace pgrig::script {
namespace {

bool IsNameStart(unsigned char c) {
  return c >= 0x80 || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsNameChar(unsigned char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

bool IsValidVariableName(std::string_view name) {
  if (name.empty() || !IsNameStart(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!IsNameChar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

int NameTable::Intern(std::string_view name) {
  auto it = index_.find(name);
  if (it != index_.end()) return it->second;
  int slot = static_cast<int>(names_.size());
  names_.emplace_back(name);
  index_.emplace(std::string(name), slot);
  return slot;
}

std::optional<int> NameTable::Find(std::string_view name) const {
  auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

Variables::Variables(std::shared_ptr<const NameTable> names)
    : names_(std::move(names)), vars_(static_cast<size_t>(names_->size())) {}

Result<Value> Variables::GetVar(Var& var, std::string_view name) {
  if (!var.defined) return InvalidArgument("undefined variable \"" + std::string(name) + "\"");
  if (!var.has_value) {
    Result<Value> v = ParseVariableValue(name, var.str);
    if (!v.ok()) return v.status();
    var.value = *v;
    var.has_value = true;
  }
  return var.value;
}

const std::string* Variables::GetVarString(Var& var) {
  if (!var.defined) return nullptr;
  if (!var.has_str) {
    var.str.clear();
    AppendValueString(var.value, &var.str);
    var.has_str = true;
  }
  return &var.str;
}

Result<Value> Variables::Get(int slot) {
  return GetVar(vars_[static_cast<size_t>(slot)], names_->Name(slot));
}

const std::string* Variables::GetString(int slot) {
  return GetVarString(vars_[static_cast<size_t>(slot)]);
}

void Variables::Set(int slot, Value v) {
  Var& var = vars_[static_cast<size_t>(slot)];
  var.value = v;
  var.defined = true;
  var.has_value = true;
  var.has_str = false;
}

void Variables::SetString(int slot, std::string_view s) {
  Var& var = vars_[static_cast<size_t>(slot)];
  var.str.assign(s.data(), s.size());
  var.defined = true;
  var.has_value = false;
  var.has_str = true;
}

Variables::Var* Variables::FindVar(std::string_view name) {
  if (std::optional<int> slot = names_->Find(name)) return &vars_[static_cast<size_t>(*slot)];
  auto it = extra_.find(std::string(name));
  return it == extra_.end() ? nullptr : &it->second;
}

const Variables::Var* Variables::FindVar(std::string_view name) const {
  if (std::optional<int> slot = names_->Find(name)) return &vars_[static_cast<size_t>(*slot)];
  auto it = extra_.find(std::string(name));
  return it == extra_.end() ? nullptr : &it->second;
}

Result<Variables::Var*> Variables::VarToSet(std::string_view context, std::string_view name) {
  Var* var = FindVar(name);
  if (var == nullptr || !var->defined) {
    // As pgbench, names are checked only when a variable is created.
    if (!IsValidVariableName(name)) {
      return InvalidArgument(std::string(context) + ": invalid variable name: \"" +
                             std::string(name) + "\"");
    }
    if (var == nullptr) var = &extra_[std::string(name)];
  }
  return var;
}

Status Variables::SetByName(std::string_view context, std::string_view name, Value v) {
  PGRIG_ASSIGN_OR_RETURN(Var * var, VarToSet(context, name));
  var->value = v;
  var->defined = true;
  var->has_value = true;
  var->has_str = false;
  return Status::Ok();
}

Status Variables::SetStringByName(std::string_view context, std::string_view name,
                                  std::string_view s) {
  PGRIG_ASSIGN_OR_RETURN(Var * var, VarToSet(context, name));
  var->str.assign(s.data(), s.size());
  var->defined = true;
  var->has_value = false;
  var->has_str = true;
  return Status::Ok();
}

bool Variables::IsDefinedByName(std::string_view name) const {
  const Var* var = FindVar(name);
  return var != nullptr && var->defined;
}

Result<Value> Variables::GetByName(std::string_view name) {
  Var* var = FindVar(name);
  if (var == nullptr) return InvalidArgument("undefined variable \"" + std::string(name) + "\"");
  return GetVar(*var, name);
}

const std::string* Variables::GetStringByName(std::string_view name) {
  Var* var = FindVar(name);
  return var == nullptr ? nullptr : GetVarString(*var);
}

}  // namespace pgrig::script
