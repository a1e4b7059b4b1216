// support/ReadFile.h: a size cap instead of reading an endless file until memory runs out, and the
// byte order mark helper.
#include "ttlplan/support/ReadFile.h"

#include <gtest/gtest.h>

using namespace ttlplan;

TEST(ReadFile, EndlessInputStopsAtTheCap) {
  Expected<std::string> text = readTextFile("/dev/zero", 1 << 20);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message,
            "'/dev/zero' is larger than 1 MiB; ttlplan reads no input that large");
}

TEST(ReadFile, ByteOrderMarkIsDropped) {
  EXPECT_EQ(withoutByteOrderMark("\xEF\xBB\xBFid,lower"), "id,lower");
  EXPECT_EQ(withoutByteOrderMark("id,lower"), "id,lower");
}
