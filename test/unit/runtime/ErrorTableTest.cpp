// runtime/lib/Errors.def against the CUDA toolkit's own headers: every cudaError_t of
// driver_types.h and every CUresult of cuda.h is a row with the same name and value, and no row
// names a code the toolkit lacks; the driver API names and describes each of its codes.

#include "DriverTypes.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

extern "C" CUresult cuGetErrorName(CUresult, const char **);
extern "C" CUresult cuGetErrorString(CUresult, const char **);

namespace {

using Codes = std::map<std::string, long>;

Codes ourRuntimeCodes() {
  Codes C;
#define PTX2AMD_CUDA_ERROR(Value, RuntimeName, DriverName, Sticky, Text) C[#RuntimeName] = Value;
#define PTX2AMD_RUNTIME_ERROR(Value, RuntimeName, DriverName, Text) C[#RuntimeName] = Value;
#include "Errors.def"
  return C;
}

Codes ourDriverCodes() {
  Codes C;
#define PTX2AMD_CUDA_ERROR(Value, RuntimeName, DriverName, Sticky, Text) C[#DriverName] = Value;
#define PTX2AMD_DRIVER_ERROR(Value, DriverName, Text) C[#DriverName] = Value;
#include "Errors.def"
  return C;
}

/// The enumerators `Prefix...= N` of the enum that \p Header's text introduces with \p Open.
Codes toolkitCodes(const std::string &Header, const std::string &Open, const std::string &Prefix) {
  std::ifstream In(Header);
  std::stringstream S;
  S << In.rdbuf();
  std::string Text = S.str();
  size_t Begin = Text.find(Open);
  REQUIRE(Begin != std::string::npos);
  size_t End = Text.find('}', Begin);
  std::string Body = Text.substr(Begin, End - Begin);
  Body = std::regex_replace(Body, std::regex(R"(/\*[\s\S]*?\*/)"), "");
  Codes C;
  std::regex Item("(" + Prefix + R"(\w*)\s*=\s*(\d+))");
  for (auto It = std::sregex_iterator(Body.begin(), Body.end(), Item); It != std::sregex_iterator();
       ++It)
    C[(*It)[1]] = std::stol((*It)[2]);
  return C;
}

} // namespace

TEST_CASE("the error table holds the toolkit's codes, no more, no fewer", "[toolkit]") {
  const char *Include = std::getenv("PTX2AMD_CUDA_INCLUDE");
  if (!Include) {
    WARN("PTX2AMD_CUDA_INCLUDE is not set: no toolkit to compare with");
    return;
  }
  Codes Runtime = toolkitCodes(std::string(Include) + "/driver_types.h",
                               "enum __device_builtin__ cudaError", "cuda(?:Success|Error)");
  Runtime.erase("cudaErrorApiFailureBase"); // a base for values, not an error
  Codes Driver = toolkitCodes(std::string(Include) + "/cuda.h", "typedef enum cudaError_enum",
                              "CUDA_(?:SUCCESS|ERROR_)");
  REQUIRE(Runtime.size() > 100);
  REQUIRE(Driver.size() > 90);
  CHECK(ourRuntimeCodes() == Runtime);
  CHECK(ourDriverCodes() == Driver);
}

TEST_CASE("the driver API names and describes every code of the table", "[errors]") {
  for (const auto &[Name, Value] : ourDriverCodes()) {
    const char *Got = nullptr, *Text = nullptr;
    REQUIRE(cuGetErrorName(CUresult(Value), &Got) == CUDA_SUCCESS);
    CHECK(std::string(Got) == Name);
    REQUIRE(cuGetErrorString(CUresult(Value), &Text) == CUDA_SUCCESS);
    CHECK(std::string(Text).size() > 3);
  }
  const char *Got = nullptr;
  CHECK(cuGetErrorName(CUresult(123456), &Got) == CUDA_ERROR_INVALID_VALUE);
}
