// Catch's own signal handlers would replace the host backend's, which turn a memory fault in a
// kernel into a launch error.
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
