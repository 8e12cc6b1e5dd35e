// `ptx2amd check`.
include "Common.td"

def arch : Separate<["--"], "arch">, MetaVarName<"TARGET">,
           HelpText<"a target to check for (default gfx90a); repeat for more">;
def no_codegen : Flag<["--"], "no-codegen">,
                 HelpText<"stop after optimisation: much faster on whole libraries, but a kernel\n"
                          "whose code generation fails is reported as translating">;
def json : Flag<["--"], "json">, HelpText<"machine-readable output">;
def verbose : Flag<["--"], "verbose">,
              HelpText<"list every kernel, not only those that do not translate">;
