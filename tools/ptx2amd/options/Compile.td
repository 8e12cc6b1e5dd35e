// `ptx2amd compile`.
include "Common.td"

def arch : Separate<["--"], "arch">, MetaVarName<"TARGET">,
           HelpText<"a target: gfx90a, gfx942, gfx950 (wave64), gfx1030, gfx1100, gfx1201\n"
                    "(wave32); repeat for more">;
def all_targets : Flag<["--"], "all-targets">, HelpText<"every target that --arch takes">;
def emit : Separate<["--"], "emit">, MetaVarName<"llvm|asm|obj|host-ll">,
           HelpText<"what to write (default obj: a code object, HSACO; host-ll: the\n"
                    "module the CPU device compiles, as LLVM IR)">;
def O : Joined<["-"], "O">, MetaVarName<"0..3">, HelpText<"optimisation level (default -O3)">;
def code_object_version : Separate<["--"], "code-object-version">, MetaVarName<"4|5|6">,
                          HelpText<"the code object version (default 5)">;
def codegen_partitions
    : Separate<["--"], "codegen-partitions">, MetaVarName<"N">,
      HelpText<"code-generate each module on at most N parts in parallel, linked into\n"
               "one code object (default 0: by the module's size, up to 8 parts for\n"
               "modules of 8 or more kernels; 1: never); the output depends on N only">;
def j : Separate<["-"], "j">, MetaVarName<"N">,
        HelpText<"translate N module/target pairs at once (default: one per hardware\n"
                 "thread); the output does not depend on N">;
def o : JoinedOrSeparate<["-"], "o">, MetaVarName<"OUT">,
        HelpText<"output file for one module and one target; a folder otherwise\n"
                 "(default: <input>.<target>.{ll,s,hsaco,host.ll} in the current folder)">;
