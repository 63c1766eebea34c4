// SPDX-License-Identifier: MIT
#include "morphkit/io/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace morphkit {

TEST(JsonWriter, ObjectsArraysAndSeparators) {
  JsonWriter json;
  json.beginObject().field("a", 1).key("b").beginArray().value(2.5).value("x").null().endArray();
  json.key("c").beginObject().endObject().field("d", true).endObject();
  EXPECT_EQ(json.str(), R"({"a":1,"b":[2.5,"x",null],"c":{},"d":true})");
}

TEST(JsonWriter, EscapesStringsAndKeys) {
  JsonWriter json;
  json.beginObject().field("q\"k", std::string_view("line\nbreak\\ \x01")).endObject();
  EXPECT_EQ(json.str(), "{\"q\\\"k\":\"line\\nbreak\\\\ \\u0001\"}");
}

TEST(JsonWriter, FloatsRoundTripAndNonFiniteBecomesNull) {
  JsonWriter json;
  float values[] = {0.1f, -3.0f, 1e-7f};
  json.beginArray().array(values).value(std::numeric_limits<double>::quiet_NaN()).endArray();
  EXPECT_EQ(json.str(), "[[0.1,-3,1e-07],null]");
}

TEST(JsonWriter, PrettyKeepsNumberArraysOnOneLine) {
  JsonWriter json(true);
  float values[] = {1, 2};
  json.beginObject().key("v").array(values).endObject();
  EXPECT_EQ(json.str(), "{\n  \"v\": [1,2]\n}");
}

}  // namespace morphkit
