// `ptx2amd extract`.
include "Common.td"

def o : JoinedOrSeparate<["-"], "o">, MetaVarName<"DIR">,
        HelpText<"the folder to write the entries to (created if missing; required)">;
def : Separate<["--"], "output">, Alias<o>, MetaVarName<"DIR">, HelpText<"same as -o">;
