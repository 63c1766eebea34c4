// SPDX-License-Identifier: MIT
// printable()/quote(): untrusted text made safe for one terminal line (issue 9, class 2), and the JSON writer's
// escaping of the same characters.
#include "morphkit/model/text.h"

#include <gtest/gtest.h>

#include <string>

#include "morphkit/io/json_writer.h"

namespace morphkit {
namespace {

// No byte a terminal could act on: C0 (ESC, BEL, CR, LF ...), DEL, and no C1 as UTF-8 (C2 80..C2 9F).
bool terminalSafe(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) return false;
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F) return false;
  }
  return true;
}

TEST(Printable, PassesPlainTextAndUtf8Unchanged) {
  EXPECT_EQ(printable("Fox.glb"), "Fox.glb");
  EXPECT_EQ(printable("C:\\models\\a b.glb"), "C:\\models\\a b.glb");  // backslash is not escaped: idempotent
  EXPECT_EQ(printable("caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80");
}

TEST(Printable, EscapesC0DelAndLineBreaks) {
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable("\x1b]0;pwned\x07\x1b[2J"), "\\x1b]0;pwned\\x07\\x1b[2J");
  EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(printable("del\x7f"), "del\\x7f");
}

TEST(Printable, EscapesC1SeparatorsBidiAndInvalidUtf8) {
  EXPECT_EQ(printable("csi\xC2\x9B"
                      "2J"),
            "csi\\u009b2J");                                            // U+009B CSI as UTF-8
  EXPECT_EQ(printable("nel\xC2\x85x"), "nel\\u0085x");                  // U+0085 NEXT LINE
  EXPECT_EQ(printable("ls\xE2\x80\xA8x"), "ls\\u2028x");                // U+2028 LINE SEPARATOR
  EXPECT_EQ(printable("rlo\xE2\x80\xAEtxt.exe"), "rlo\\u202etxt.exe");  // U+202E RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(printable("raw\x9B"
                      "2J"),
            "raw\\x9b2J");                                  // a lone C1 byte (8-bit terminals)
  EXPECT_EQ(printable("\xC0\xAF"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // a UTF-16 surrogate
  EXPECT_EQ(printable("cut\xE6\x97"), "cut\\xe6\\x97");     // truncated sequence
}

TEST(Printable, CutsLongTextWithItsTotalSize) {
  std::string uri(50'000'000, 'a');
  std::string out = printable(uri);
  EXPECT_LE(out.size(), kPrintableMaxBytes);
  EXPECT_NE(out.find("... (50000000 bytes)"), std::string::npos) << out;
  // The cut never splits a character or an escape.
  std::string wide;
  for (int i = 0; i < 200; ++i) wide += "\xE6\x97\xA5\n";
  std::string cut = printable(wide, 50);
  EXPECT_TRUE(terminalSafe(cut));
  const std::string kept = cut.substr(0, cut.find("..."));
  EXPECT_EQ(printable(wide, 1 << 20).rfind(kept, 0), 0u) << cut;     // a prefix of the full escape, whole units only
  EXPECT_TRUE(kept.size() % 5 == 0 || kept.size() % 5 == 3) << cut;  // units of U+65E5 (3 bytes) and "\\n"
  EXPECT_NE(cut.find("(800 bytes)"), std::string::npos) << cut;
  EXPECT_LE(cut.size(), 50u);
}

TEST(Printable, IsIdempotentAndQuotedWraps) {
  std::string hostile = "x\x1b[31m\xC2\x9B\n\xE2\x80\xA8\xFF" + std::string(500, 'z');
  std::string once = printable(hostile);
  EXPECT_TRUE(terminalSafe(once));
  EXPECT_EQ(printable(once), once);
  EXPECT_EQ(printable(once, 4096), once);
  EXPECT_EQ(quote("a\nb"), "'a\\nb'");
}

TEST(Printable, EveryByteValueComesOutSafe) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += char(b);
  EXPECT_TRUE(terminalSafe(printable(all, 1 << 20)));
  for (int b = 0x80; b < 0xC0; ++b) {  // every C1-range continuation after C2
    std::string two = {char(0xC2), char(b)};
    EXPECT_TRUE(terminalSafe(printable(two))) << b;
  }
}

TEST(JsonWriterText, EscapesTerminalControlsAndReplacesInvalidUtf8) {
  JsonWriter json;
  json.value(std::string_view("\x1b]0;t\x07|\xC2\x9B|\xE2\x80\xA8|\xFF|\xC3\xA9"));
  EXPECT_EQ(json.str(), "\"\\u001b]0;t\\u0007|\\u009b|\\u2028|\\ufffd|\xC3\xA9\"");
  EXPECT_TRUE(terminalSafe(json.str()));
}

}  // namespace
}  // namespace morphkit
