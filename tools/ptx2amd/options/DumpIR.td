// `ptx2amd dump-ir`.
include "Common.td"

def ptx : Flag<["--"], "ptx">, HelpText<"print PTX text again instead of the SSA form">;
def function : Separate<["--"], "function">, MetaVarName<"NAME">,
               HelpText<"print only this function (or kernel)">;
def o : JoinedOrSeparate<["-"], "o">, MetaVarName<"FILE">,
        HelpText<"write to FILE instead of standard output">;
