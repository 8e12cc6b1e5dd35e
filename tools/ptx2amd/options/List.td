// `ptx2amd list`.
include "Common.td"

def json : Flag<["--"], "json">, HelpText<"machine-readable output">;
