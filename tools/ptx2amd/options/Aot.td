// `ptx2amd aot`.
include "Common.td"

def arch : Separate<["--"], "arch">, MetaVarName<"LIST">,
           HelpText<"the targets, comma-separated or repeated (default: the GPU's, else the\n"
                    "one PTX2AMD_HOST_TARGET names, else gfx90a)">;
def arch_eq : Joined<["--"], "arch=">, Alias<arch>;
def device : Separate<["--"], "device">, MetaVarName<"auto|host|hsa">,
             HelpText<"whose translations to make: code objects for AMD GPUs (hsa; for a\n"
                      "target whose GPU is not here they are translated only), the CPU\n"
                      "device's (host; compiled for this CPU), or the GPU's where one is\n"
                      "usable, else the CPU device's (auto, the default; PTX2AMD_DEVICE)">;
def device_eq : Joined<["--"], "device=">, Alias<device>;
def jobs : Separate<["--"], "jobs">, MetaVarName<"N">,
           HelpText<"translate N kernels at once (default: one per hardware thread)">;
def jobs_eq : Joined<["--"], "jobs=">, Alias<jobs>;
def j : Separate<["-"], "j">, Alias<jobs>, HelpText<"same as --jobs">;
def cache : Separate<["--"], "cache">, MetaVarName<"DIR">,
            HelpText<"the cache folder to fill (default: the JIT cache, PTX2AMD_CACHE_DIR)">;
def cache_eq : Joined<["--"], "cache=">, Alias<cache>;
def compute_capability
    : Separate<["--"], "compute-capability">, MetaVarName<"M.m">,
      HelpText<"the capability whose PTX the runs will take (default:\n"
               "PTX2AMD_COMPUTE_CAPABILITY, else 8.6)">;
def no_libraries : Flag<["--"], "no-libraries">,
                   HelpText<"only the FILEs, not the CUDA libraries they link">;
def json : Flag<["--"], "json">, HelpText<"the summary as JSON on standard output">;
