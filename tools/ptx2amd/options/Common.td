// What every option table of the ptx2amd command line has.
include "llvm/Option/OptParser.td"

def help : Flag<["--"], "help">, HelpText<"print this help and exit">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"same as --help">;
