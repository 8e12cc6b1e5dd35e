// A PTX module's kernels as separate modules: what lazy per-kernel translation translates.
//
// outlineModule() scans the text once (no parse: comments, braces and identifiers only) into its
// top-level items: the header (.version, .target, .address_size, .file, .pragma), functions and
// kernels (declarations and definitions), and module variables. slice() is one kernel with the
// functions its body names (called, or whose address it takes), transitively, and the .shared
// variables they name, in the module's order, verbatim and on their lines of the module (blank
// lines stand for what is left out, so that diagnostics give the module's line:column): a valid
// PTX module whose text depends on nothing else but those positions, so it is also the kernel's
// cache key.
//
// Module variables (.global, .const) have one address per module, whichever kernels are
// translated: a slice declares each variable its code names `.extern` (its type, alignment and
// size, no initializer), and dataSlice() defines them all, once, for the loader to give every
// kernel's translation their addresses (hsa_executable_agent_global_variable_define on HSA, the
// JIT's symbols on the host). A module whose kernels share state that cannot be declared apart
// is translated whole, and its outline says why (unsliceable()): texture, surface and sampler
// references and managed variables that code names, variables whose initializers name functions,
// device-side launches (which name the module's other kernels), and what the outline does not
// follow (debug sections, .alias).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptx2amd::grammar {

class ModuleOutline {
public:
  /// The kernels (.entry definitions), in the module's order.
  const std::vector<std::string> &kernels() const { return Kernels; }
  /// Why the module's kernels cannot be translated alone; empty when they can.
  const std::string &unsliceable() const { return Why; }
  /// The PTX of \p Kernel and what it reaches, the module variables it names declared `.extern`;
  /// empty for a name that is no kernel of the module, or when the module is unsliceable.
  std::string slice(std::string_view Kernel) const;
  /// The module variables slice(\p Kernel) declares `.extern`, in the module's order: what its
  /// translation needs the addresses of, from the data slice's.
  std::vector<std::string> variablesOf(std::string_view Kernel) const;
  /// Whether the module has variables.
  bool hasVariables() const;
  /// The header and every module variable, on their lines: a module of no code; empty when the
  /// module has no variables or is unsliceable.
  std::string dataSlice() const;

private:
  friend ModuleOutline outlineModule(std::string_view Ptx);
  enum class ItemKind { Header, Function, Shared, Variable };
  struct Item {
    ItemKind Kind;
    std::string_view Text;               ///< verbatim, from its first directive to its `;` or `}`
    std::string_view Name;               ///< of a function or variable
    bool IsKernel = false;               ///< a .entry
    uint32_t Line = 1, Column = 1;       ///< where Text starts in the module
    std::vector<std::string_view> Names; ///< the identifiers its body (or initializer) uses
    std::string Declaration;             ///< a .global/.const variable's `.extern` form
  };
  enum class Use : uint8_t { None, Whole, Declaration };
  /// What slice(\p Kernel) holds of each item (nothing when \p Kernel is no kernel).
  std::vector<Use> reach(std::string_view Kernel) const;
  /// The items \p Keep marks (whole or as declarations), and the header, on their lines of the
  /// module.
  std::string render(const std::vector<Use> &Keep) const;

  std::vector<Item> Items;
  /// Function and .shared variable name -> its items (a declaration and a definition).
  std::unordered_map<std::string_view, std::vector<uint32_t>> ByName;
  std::vector<std::string> Kernels;
  std::string Why;
};

/// Outlines \p Ptx, which must outlive the result. Text it cannot follow (an unbalanced brace,
/// an unknown top-level directive) makes the module unsliceable rather than an error: the
/// translation of the whole module reports what is wrong with it.
ModuleOutline outlineModule(std::string_view Ptx);

} // namespace ptx2amd::grammar
