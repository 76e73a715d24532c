//===- error_test.cpp - last error, status names, exception guard, info ---===//
#include "argus_error.h"
#include "argus_registry.h"
#include "runtime_testing.h"

#include <condition_variable>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

using rt_test::contains;

TEST(LastError, EmptyOnAFreshThread) {
  std::string seen = "not run";
  std::thread([&] { seen = argus_last_error(); }).join();
  EXPECT_EQ(seen, "");
}

TEST(LastError, IsThreadLocal) {
  // Thread 1 fails on m, thread 2 on lda, interleaved: each keeps its own.
  std::string first, second, firstAgain;
  std::mutex mu;
  std::condition_variable cv;
  int step = 0;
  auto waitFor = [&](int s) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return step == s; });
  };
  auto advance = [&] {
    std::lock_guard<std::mutex> lock(mu);
    ++step;
    cv.notify_all();
  };
  std::thread t1([&] {
    argus_gemm_args g{};
    g.struct_size = sizeof g;
    g.m = -7;
    EXPECT_EQ(argus_gemm(&g, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
    first = argus_last_error();
    advance();  // step 1: thread 2 may fail now
    waitFor(2); // thread 2 has failed
    firstAgain = argus_last_error();
  });
  std::thread t2([&] {
    waitFor(1);
    argus_gemm_args g{};
    g.struct_size = sizeof g;
    g.m = 1, g.n = 1, g.k = 4, g.lda = 2;
    EXPECT_EQ(argus_gemm(&g, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
    second = argus_last_error();
    advance();
  });
  t1.join();
  t2.join();
  EXPECT_EQ(first, "argus_gemm: m (-7) must be >= 0");
  EXPECT_EQ(second, "argus_gemm: lda (2) must be >= k (4)");
  EXPECT_EQ(firstAgain, first) << "thread 2's failure leaked into thread 1";
}

TEST(LastError, SurvivesASuccessfulCall) {
  EXPECT_EQ(argus_gemm(nullptr, nullptr), ARGUS_ERROR_INVALID_ARGUMENT);
  argus_gemm_args empty{};
  empty.struct_size = sizeof empty;
  EXPECT_EQ(argus_gemm(&empty, nullptr), ARGUS_OK);
  EXPECT_STREQ(argus_last_error(), "argus_gemm: args is NULL");
}

TEST(LastError, LongMessagesAreTruncatedNotOverflowed) {
  std::string huge(5000, 'x');
  EXPECT_EQ(argus_rt::fail(ARGUS_ERROR_INTERNAL, "%s", huge.c_str()), ARGUS_ERROR_INTERNAL);
  std::string message = argus_last_error();
  EXPECT_EQ(message.size(), static_cast<size_t>(argus_rt::kMaxErrorLength - 1));
  EXPECT_EQ(message.substr(message.size() - 3), "...");
}

TEST(Guard, ExceptionsBecomeInternalErrors) {
  EXPECT_EQ(argus_rt::guard("argus_x", []() -> argus_status { throw std::bad_alloc(); }),
            ARGUS_ERROR_INTERNAL);
  EXPECT_TRUE(contains(argus_last_error(), "argus_x: internal error: std::bad_alloc"))
      << argus_last_error();
  EXPECT_EQ(argus_rt::guard("argus_y", []() -> argus_status { throw 42; }),
            ARGUS_ERROR_INTERNAL);
  EXPECT_STREQ(argus_last_error(), "argus_y: internal error: unknown exception");
  EXPECT_EQ(argus_rt::guard("argus_z", [] { return ARGUS_OK; }), ARGUS_OK);
}

TEST(StatusString, NamesEveryStatus) {
  EXPECT_STREQ(argus_status_string(ARGUS_OK), "ARGUS_OK");
  EXPECT_STREQ(argus_status_string(ARGUS_ERROR_INVALID_ARGUMENT), "ARGUS_ERROR_INVALID_ARGUMENT");
  EXPECT_STREQ(argus_status_string(ARGUS_ERROR_UNSUPPORTED), "ARGUS_ERROR_UNSUPPORTED");
  EXPECT_STREQ(argus_status_string(ARGUS_ERROR_DEVICE), "ARGUS_ERROR_DEVICE");
  EXPECT_STREQ(argus_status_string(ARGUS_ERROR_INTERNAL), "ARGUS_ERROR_INTERNAL");
  EXPECT_STREQ(argus_status_string(static_cast<argus_status>(77)), "ARGUS_UNKNOWN_STATUS");
}

TEST(Info, VersionAbiAndManifestComeFromTheTables) {
  EXPECT_EQ(argus_abi_version(), static_cast<uint32_t>(ARGUS_ABI_VERSION));
  EXPECT_STREQ(argus_version(), "1.2.3");
  EXPECT_EQ(argus_version(), static_cast<const char *>(argus_generated_version));
  EXPECT_EQ(argus_manifest_json()[0], '{');
  EXPECT_TRUE(contains(argus_manifest_json(), "\"model\": \"fake\""));
}

} // namespace
