// `ptx2amd [options]`: the options before a command.
include "Common.td"

def version : Flag<["--"], "version">, HelpText<"print the version and exit">;
