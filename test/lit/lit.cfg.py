import lit.formats

config.name = "ptx2amd"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".ptx", ".test"]
config.test_source_root = config.source_root
config.test_exec_root = config.ptx2amd_bin_dir + "/../test/lit-out"
config.excludes = ["Inputs"]
config.substitutions.append(("%ptx2amd", config.ptx2amd_bin_dir + "/ptx2amd"))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%not", config.not_tool))
config.substitutions.append(("%inputs", config.source_root + "/Inputs"))
config.substitutions.append(("%cuda_bins", config.fatbin_bins))
import os
if os.path.exists(os.path.join(config.fatbin_bins, "k_multi")):
    config.available_features.add("nvcc-binaries")
