// The project's one error type: a message (located where the input has a place, as
// `file:line:column: ...`) with the kind of failure, so that a consumer picks its answer by cause —
// the runtime maps kinds to CUDA's codes in one place — rather than by call site.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ptx2amd {

enum class ErrorKind {
  BadInput,       ///< malformed PTX, container, code object or argument: the input's fault
  Unsupported,    ///< well-formed, but uses what is not implemented (yet) or not available here
  OutOfResources, ///< memory, address space, queues, device limits
  Io,             ///< a file or cache could not be read or written
  Internal,       ///< a bug of ours, or a tool of ours failing (the verifier, lld)
};

/// "bad input", "unsupported", ... (for messages and tests).
llvm::StringRef errorKindName(ErrorKind K);

class KindedError : public llvm::ErrorInfo<KindedError> {
public:
  static char ID;
  KindedError(ErrorKind Kind, std::string Message) : Kind(Kind), Message(std::move(Message)) {}
  ErrorKind kind() const { return Kind; }
  std::string message() const override { return Message; }
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

private:
  ErrorKind Kind;
  std::string Message;
};

llvm::Error makeError(ErrorKind Kind, const llvm::Twine &Message);

/// A consumed error: its kind and its message. A KindedError keeps its own kind; an error that
/// carries a std::error_code (a failed system call) is Io; any other, Internal. Of a list of
/// errors, the first decides the kind and the messages are joined by newlines.
struct ErrorReport {
  ErrorKind Kind = ErrorKind::Internal;
  std::string Message;
};
ErrorReport takeError(llvm::Error E);

/// \p E with \p Context prefixed to its message ("Context: message"), its kind kept.
llvm::Error withContext(llvm::Error E, const llvm::Twine &Context);

} // namespace ptx2amd
