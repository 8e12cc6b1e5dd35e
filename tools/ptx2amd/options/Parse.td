// `ptx2amd parse`.
include "Common.td"

def j : JoinedOrSeparate<["-"], "j">, MetaVarName<"N">,
        HelpText<"build function bodies on N threads (0 = all cores; default 1)">;
def : Separate<["--"], "threads">, Alias<j>, MetaVarName<"N">, HelpText<"same as -j">;
def no_verify : Flag<["--"], "no-verify">, HelpText<"skip the IR verifier">;
def stats : Flag<["--"], "stats">,
            HelpText<"print per-file counts (functions, kernels, blocks, instructions) and MB/s">;
def quiet : Flag<["--"], "quiet">, HelpText<"print nothing but diagnostics">;
def : Flag<["-"], "q">, Alias<quiet>, HelpText<"same as --quiet">;
