// support/'s error type: every error has a kind when consumed, contexts keep it, and the kinds of
// errors that are not ours follow from what they carry.
#include "ptx2amd/support/Error.h"

#include <catch2/catch.hpp>

#include <system_error>

using namespace ptx2amd;

TEST_CASE("an error keeps its kind through takeError and withContext", "[support]") {
  ErrorReport R = takeError(makeError(ErrorKind::OutOfResources, "a heap of 1 PiB"));
  CHECK(R.Kind == ErrorKind::OutOfResources);
  CHECK(R.Message == "a heap of 1 PiB");

  R = takeError(withContext(makeError(ErrorKind::BadInput, "x.ptx:3:7: error: bad"), "module 'x'"));
  CHECK(R.Kind == ErrorKind::BadInput);
  CHECK(R.Message == "module 'x': x.ptx:3:7: error: bad");
  llvm::Error None = withContext(llvm::Error::success(), "nothing");
  CHECK_FALSE(bool(None));
}

TEST_CASE("errors that are not ours get the kind of what they carry", "[support]") {
  CHECK(
      takeError(llvm::errorCodeToError(std::make_error_code(std::errc::no_such_file_or_directory)))
          .Kind == ErrorKind::Io);
  CHECK(takeError(llvm::createStringError(llvm::inconvertibleErrorCode(), "lld crashed")).Kind ==
        ErrorKind::Internal);
  // Of several, the first decides; every message is kept.
  ErrorReport R = takeError(llvm::joinErrors(makeError(ErrorKind::Unsupported, "first"),
                                             makeError(ErrorKind::Io, "second")));
  CHECK(R.Kind == ErrorKind::Unsupported);
  CHECK(R.Message == "first\nsecond");
}

TEST_CASE("kinds have names", "[support]") {
  CHECK(errorKindName(ErrorKind::BadInput) == "bad input");
  CHECK(errorKindName(ErrorKind::Unsupported) == "unsupported");
  CHECK(errorKindName(ErrorKind::OutOfResources) == "out of resources");
  CHECK(errorKindName(ErrorKind::Io) == "I/O");
  CHECK(errorKindName(ErrorKind::Internal) == "internal");
}
