// NameTable and Variables: per-client script variables, addressed by slot.
//
// Every variable name a script set mentions (\set targets, :name references
// in SQL, expressions, \sleep and \shell arguments, \setshell targets) is
// interned into one NameTable while the scripts are parsed, so that the hot
// path reads and writes variables by integer slot and never hashes a string.
// The engine also interns the automatic variables (client_id, scale,
// default_seed, random_seed) and -D names before creating clients; names
// that appear only at run time (\gset / \aset column names) live in a small
// per-client overflow map.
//
// Ownership and threads: a NameTable is built single-threaded (parse time),
// then shared read-only (std::shared_ptr<const NameTable>) by every client
// of every thread.  A Variables object belongs to one client and is used by
// one thread at a time; it is not thread-safe.
//
// Semantics follow pgbench: a variable holds a typed Value or a string (from
// -D, \gset, \aset, \setshell) that is parsed lazily the first time an
// expression reads it (ParseValueString); its string form is produced and
// cached the first time SQL needs it (AppendValueString).  Setting a variable
// whose name is not a valid pgbench name (letters, digits, '_', bytes >= 0x80,
// not starting with a digit) fails with pgbench's text
// '<context>: invalid variable name: "<name>"'.
#ifndef PGRIG_SCRIPT_VARIABLES_H_
#define PGRIG_SCRIPT_VARIABLES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "script/value.h"

namespace pgrig::script {

// pgbench's valid_variable_name().
bool IsValidVariableName(std::string_view name);

class NameTable {
 public:
  // Returns the slot of `name`, adding it if new.  Does not validate the name
  // (pgbench reports invalid names only when a value is stored).
  int Intern(std::string_view name);
  std::optional<int> Find(std::string_view name) const;
  const std::string& Name(int slot) const { return names_[static_cast<size_t>(slot)]; }
  int size() const { return static_cast<int>(names_.size()); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, int, Hash, std::equal_to<>> index_;
};

class Variables {
 public:
  explicit Variables(std::shared_ptr<const NameTable> names);
  // Copies share the NameTable; used to give every client the -D set.
  Variables(const Variables&) = default;
  Variables& operator=(const Variables&) = default;
  Variables(Variables&&) = default;
  Variables& operator=(Variables&&) = default;

  const NameTable& names() const { return *names_; }

  // --- hot path: by slot ------------------------------------------------
  bool IsDefined(int slot) const { return vars_[static_cast<size_t>(slot)].defined; }
  // The typed value; parses a string form on first use.  Errors (pgbench's
  // texts): 'undefined variable "x"', 'malformed variable "x" value: "bla"'.
  Result<Value> Get(int slot);
  // The string form (cached; the pointer stays valid until the variable is
  // next set).  nullptr when the variable is undefined.
  const std::string* GetString(int slot);
  void Set(int slot, Value v);
  void SetString(int slot, std::string_view s);

  // --- by name (-D, \gset, \aset, automatic variables, tests) -------------
  // `context` prefixes the invalid-name error ("set", "gset", "-D", ...).
  Status SetByName(std::string_view context, std::string_view name, Value v);
  Status SetStringByName(std::string_view context, std::string_view name, std::string_view s);
  bool IsDefinedByName(std::string_view name) const;
  Result<Value> GetByName(std::string_view name);
  const std::string* GetStringByName(std::string_view name);

 private:
  struct Var {
    Value value;
    std::string str;
    bool defined = false;
    bool has_value = false;  // value is current
    bool has_str = false;    // str is current
  };
  Var* FindVar(std::string_view name);
  // The variable SetByName/SetStringByName write: found, or created when
  // `name` is a valid variable name (an error naming `context` otherwise).
  Result<Var*> VarToSet(std::string_view context, std::string_view name);
  const Var* FindVar(std::string_view name) const;
  Result<Value> GetVar(Var& var, std::string_view name);
  const std::string* GetVarString(Var& var);

  std::shared_ptr<const NameTable> names_;
  std::vector<Var> vars_;
  std::unordered_map<std::string, Var> extra_;  // names not in the table
};

}  // namespace pgrig::script

#endif  // PGRIG_SCRIPT_VARIABLES_H_
