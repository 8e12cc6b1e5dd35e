// `ptx2amd cache`.
include "Common.td"

def json : Flag<["--"], "json">, HelpText<"machine-readable output of stats">;
