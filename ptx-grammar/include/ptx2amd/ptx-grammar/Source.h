// Source text and positions shared by the PTX front end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ptx2amd {

/// A 1-based line and column in a PTX source. Column 0 means "unknown".
struct SourceLoc {
  uint32_t line = 0;
  uint32_t column = 0;
};

/// A contiguous piece of a source text and the position of its first byte.
struct TextRange {
  uint64_t offset = 0;
  uint64_t size = 0;
  SourceLoc start{1, 1};
};

/// Immutable PTX text plus the name used in diagnostics. Shared by every function of a module so
/// that bodies can be parsed lazily, after the module header.
class SourceText {
public:
  SourceText(std::string name, std::string text) : Name(std::move(name)), Storage(std::move(text)) {
    Text = Storage;
  }
  /// Borrows \p text: the caller keeps it alive as long as this object.
  static std::shared_ptr<SourceText> borrow(std::string name, std::string_view text) {
    auto S = std::make_shared<SourceText>(std::move(name), std::string());
    S->Text = text;
    return S;
  }
  const std::string &name() const { return Name; }
  std::string_view text() const { return Text; }
  TextRange whole() const { return {0, Text.size(), {1, 1}}; }

private:
  std::string Name;
  std::string Storage;
  std::string_view Text;
};

} // namespace ptx2amd
