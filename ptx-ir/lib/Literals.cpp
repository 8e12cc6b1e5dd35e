// Integer and hexadecimal float literals of PTX.
#include "BuildContext.h"

#include <cctype>

namespace ptx2amd::ir::build {

std::optional<uint64_t> integerLiteral(std::string_view S) {
  if (!S.empty() && S.back() == 'U')
    S.remove_suffix(1);
  unsigned Base = 10;
  if (S.size() > 2 && S[0] == '0' && (S[1] | 0x20) == 'x') {
    Base = 16;
    S.remove_prefix(2);
  } else if (S.size() > 2 && S[0] == '0' && (S[1] | 0x20) == 'b') {
    Base = 2;
    S.remove_prefix(2);
  } else if (S.size() > 1 && S[0] == '0') {
    Base = 8;
    S.remove_prefix(1);
  }
  if (S.empty())
    return std::nullopt;
  unsigned __int128 V = 0;
  for (char C : S) {
    unsigned D = C >= '0' && C <= '9'                          ? C - '0'
                 : std::isalpha(static_cast<unsigned char>(C)) ? (C | 0x20) - 'a' + 10
                                                               : 99;
    if (D >= Base)
      return std::nullopt;
    V = V * Base + D;
    if (V > UINT64_MAX)
      return std::nullopt;
  }
  return static_cast<uint64_t>(V);
}

std::optional<std::pair<uint64_t, uint8_t>> hexFloatLiteral(std::string_view S) {
  if (S.size() < 3 || S[0] != '0' || ((S[1] | 0x20) != 'f' && (S[1] | 0x20) != 'd'))
    return std::nullopt;
  uint64_t V = 0;
  for (char C : S.substr(2)) {
    if (!std::isxdigit(static_cast<unsigned char>(C)))
      return std::nullopt;
    V = V << 4 | (C <= '9' ? C - '0' : (C | 0x20) - 'a' + 10);
  }
  return std::pair<uint64_t, uint8_t>{V, (S[1] | 0x20) == 'f' ? 32 : 64};
}

} // namespace ptx2amd::ir::build
