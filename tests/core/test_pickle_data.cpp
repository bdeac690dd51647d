// The pickle data reader: every data opcode pickle.dump writes, memoised values shared, and the
// opcodes that would build or call Python objects refused with their byte offset.
#include <gtest/gtest.h>

#include <string>

#include "io/pickle_data.h"

namespace ts {

namespace {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

}  // namespace

// pickle.dumps({"a": [1, -2, 300, 70000, None, True, 0.5, b"x"], "addr": 2**63 + 5, "t": (1,)},
// protocol=2), written out opcode by opcode, with the list memoised and fetched again.
TEST(PickleData, ReadsDataOpcodes) {
  std::string p = bytes({0x80, 0x02, '}', 'q', 0x00, '('});
  p += bytes({'X', 1, 0, 0, 0, 'a', ']', 'q', 0x01, '('});
  p += bytes({'K', 1, 'J', 0xfe, 0xff, 0xff, 0xff, 'M', 0x2c, 0x01, 0x8a, 3, 0x70, 0x11, 0x01});
  p += bytes({'N', 0x88, 'G', 0x3f, 0xe0, 0, 0, 0, 0, 0, 0, 'C', 1, 'x', 'e'});
  p += bytes({0x8c, 4, 'a', 'd', 'd', 'r', 0x8a, 9, 5, 0, 0, 0, 0, 0, 0, 0x80, 0});
  p += bytes({0x8c, 1, 't', 'K', 1, 0x85, 0x8c, 5, 'a', 'g', 'a', 'i', 'n', 'h', 0x01, 'u', '.'});
  auto doc = readPickle(p);
  ASSERT_TRUE(doc.ok()) << doc.error();
  const PickleDoc& d = *doc;
  auto a = d.find(d.root, "a");
  ASSERT_TRUE(a);
  const PickleNode& list = d.at(*a);
  ASSERT_EQ(list.kind, PickleKind::List);
  ASSERT_EQ(list.items.size(), 8u);
  EXPECT_EQ(d.at(list.items[0]).integer, 1);
  EXPECT_EQ(d.at(list.items[1]).integer, -2);
  EXPECT_EQ(d.at(list.items[2]).integer, 300);
  EXPECT_EQ(d.at(list.items[3]).integer, 70000);
  EXPECT_EQ(d.at(list.items[4]).kind, PickleKind::None);
  EXPECT_EQ(d.at(list.items[5]).kind, PickleKind::Bool);
  EXPECT_EQ(d.at(list.items[5]).integer, 1);
  EXPECT_EQ(d.at(list.items[6]).real, 0.5);
  EXPECT_EQ(d.at(list.items[7]).kind, PickleKind::Bytes);
  EXPECT_EQ(d.at(list.items[7]).text, "x");
  auto addr = d.find(d.root, "addr");
  ASSERT_TRUE(addr);
  EXPECT_EQ(static_cast<uint64_t>(d.at(*addr).integer), (uint64_t{1} << 63) + 5);
  auto t = d.find(d.root, "t");
  ASSERT_TRUE(t);
  EXPECT_EQ(d.at(*t).kind, PickleKind::Tuple);
  auto again = d.find(d.root, "again");
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *a);  // the memoised list, one value reached twice
}

// pickle.dumps of a function or an object asks for a global and a call: refused where it stands.
TEST(PickleData, RefusesObjectsAtTheirOffset) {
  // protocol 2: GLOBAL 'os system', MARK, the argument, TUPLE, REDUCE
  const std::string global = std::string(
      "\x80\x02"
      "cos\nsystem\n(X\x02\x00\x00\x00lstR.",
      24);
  auto r = readPickle(global);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("at byte 2"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("GLOBAL"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("refused"), std::string::npos) << r.error();
  // protocol 4: STACK_GLOBAL after two strings, then a REDUCE
  std::string stack = bytes(
      {0x80, 0x04, 0x8c, 2, 'o', 's', 0x8c, 6, 's', 'y', 's', 't', 'e', 'm', 0x93, ')', 'R', '.'});
  r = readPickle(stack);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("at byte 14: opcode STACK_GLOBAL"), std::string::npos) << r.error();
  for (int op :
       {int{'R'}, int{'b'}, int{'i'}, int{'o'}, 0x81, 0x92, int{'P'}, int{'Q'}, 0x82, 0x97}) {
    auto refused = readPickle(bytes({0x80, 0x04, 'N', op, '.'}));
    ASSERT_FALSE(refused.ok()) << op;
    EXPECT_NE(refused.error().find("at byte 3: opcode"), std::string::npos) << refused.error();
  }
}

TEST(PickleData, BadBytesSayWhereAndWhat) {
  auto empty = readPickle("");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("empty"), std::string::npos);
  auto json = readPickle("{\"segments\": []}");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.error().find("not a pickle"), std::string::npos) << json.error();
  // A string whose length runs past the end, and a pickle cut before STOP.
  auto longer = readPickle(bytes({0x80, 0x04, 'X', 0xff, 0xff, 0xff, 0x7f, 'a'}));
  ASSERT_FALSE(longer.ok());
  EXPECT_NE(longer.error().find("at byte 2: a length of 2147483647 bytes runs past the end"),
            std::string::npos)
      << longer.error();
  auto cut = readPickle(bytes({0x80, 0x04, ']', 'K', 1, 'a'}));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().find("at byte 6: the pickle ends before its STOP"), std::string::npos)
      << cut.error();
  auto text = readPickle(bytes({0x80, 0x02, 'I', '1', '\n', '.'}));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().find("protocol 0 opcode 'I'"), std::string::npos) << text.error();
  auto unset = readPickle(bytes({0x80, 0x04, 'h', 7, '.'}));
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.error().find("memo entry 7"), std::string::npos) << unset.error();
  auto noMark = readPickle(bytes({0x80, 0x04, 'N', 't', '.'}));
  ASSERT_FALSE(noMark.ok());
  EXPECT_NE(noMark.error().find("MARK"), std::string::npos) << noMark.error();
  auto setToList = readPickle(bytes({0x80, 0x04, ']', 'N', 'N', 's', '.'}));
  ASSERT_FALSE(setToList.ok());
  EXPECT_NE(setToList.error().find("items added to a list, not a dict"), std::string::npos)
      << setToList.error();
  auto two = readPickle(bytes({0x80, 0x04, 'N', 'N', '.'}));
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().find("2 values on the stack"), std::string::npos) << two.error();
}

}  // namespace ts
