// Catch's own signal handlers would replace LLVM's crash recovery, which the code generator uses
// to survive an LLVM crash on one kernel (see "a kernel LLVM cannot compile is left out").
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
