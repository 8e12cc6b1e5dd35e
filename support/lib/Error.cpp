#include "ptx2amd/support/Error.h"

#include "llvm/Support/raw_ostream.h"

namespace ptx2amd {

char KindedError::ID = 0;

llvm::StringRef errorKindName(ErrorKind K) {
  switch (K) {
  case ErrorKind::BadInput:
    return "bad input";
  case ErrorKind::Unsupported:
    return "unsupported";
  case ErrorKind::OutOfResources:
    return "out of resources";
  case ErrorKind::Io:
    return "I/O";
  case ErrorKind::Internal:
    break;
  }
  return "internal";
}

void KindedError::log(llvm::raw_ostream &OS) const { OS << Message; }

std::error_code KindedError::convertToErrorCode() const { return llvm::inconvertibleErrorCode(); }

llvm::Error makeError(ErrorKind Kind, const llvm::Twine &Message) {
  return llvm::make_error<KindedError>(Kind, Message.str());
}

ErrorReport takeError(llvm::Error E) {
  ErrorReport R;
  bool First = true;
  llvm::handleAllErrors(std::move(E), [&](const llvm::ErrorInfoBase &Info) {
    ErrorKind K = ErrorKind::Internal;
    if (Info.isA<KindedError>())
      K = static_cast<const KindedError &>(Info).kind();
    else if (Info.convertToErrorCode() != llvm::inconvertibleErrorCode())
      K = ErrorKind::Io;
    if (First)
      R.Kind = K;
    else
      R.Message += "\n";
    R.Message += Info.message();
    First = false;
  });
  return R;
}

llvm::Error withContext(llvm::Error E, const llvm::Twine &Context) {
  if (!E)
    return E;
  ErrorReport R = takeError(std::move(E));
  return makeError(R.Kind, Context + ": " + R.Message);
}

} // namespace ptx2amd
