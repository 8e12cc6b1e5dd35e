// `ptx2amd run` and `ptx2amd env`.
include "Common.td"

def device : Separate<["--"], "device">, MetaVarName<"auto|host|hsa">,
             HelpText<"the device: an AMD GPU through HSA, the CPU (host), or HSA where a\n"
                      "GPU is usable, else the CPU (auto, the default; PTX2AMD_DEVICE)">;
def device_eq : Joined<["--"], "device=">, Alias<device>;
def arch : Separate<["--"], "arch">, MetaVarName<"TARGET">,
           HelpText<"the target the CPU device runs code translated for: gfx90a (wave64, the\n"
                    "default), gfx1100 (wave32), ... (PTX2AMD_HOST_TARGET); a GPU's is its own">;
def arch_eq : Joined<["--"], "arch=">, Alias<arch>;
