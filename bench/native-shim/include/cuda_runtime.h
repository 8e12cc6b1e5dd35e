// bench/quality: the CUDA runtime header of the native build is the shim (-include shim.h).
#pragma once
