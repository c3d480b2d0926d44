// SPDX-License-Identifier: MIT
// BatchRunner: every task of every batch runs exactly once, whatever the thread count and
// batch size, and finish() returns only when the whole batch is done.
#include "generate/batch_runner.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace zf::pipeline {
namespace {

TEST(BatchRunnerTest, RunsEveryTaskOfEveryBatchExactlyOnce) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    BatchRunner runner(threads);
    for (std::size_t count : {0u, 1u, 2u, 7u, 256u, 1000u}) {
      std::vector<std::atomic<int>> runs(count);
      runner.start(count, [&](std::size_t i) { runs[i].fetch_add(1); });
      runner.finish();
      for (std::size_t i = 0; i < count; ++i) {
        ASSERT_EQ(runs[i].load(), 1)
            << "threads " << threads << ", count " << count << ", task " << i;
      }
    }
  }
}

TEST(BatchRunnerTest, FinishWaitsForTasksStillRunningOnWorkers) {
  BatchRunner runner(4);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> finished{0};
    runner.start(6, [&](std::size_t i) {
      if (i % 2 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      finished.fetch_add(1);
    });
    runner.finish();
    ASSERT_EQ(finished.load(), 6) << "round " << round;
  }
}

TEST(BatchRunnerTest, SpreadsABatchOverSeveralThreads) {
  BatchRunner runner(3);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  runner.start(30, [&](std::size_t) {
    // Long enough that the workers, woken at start(), pick up tasks before the caller,
    // which only joins in at finish(), has run them all.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard lock(mutex);
    seen.insert(std::this_thread::get_id());
  });
  runner.finish();
  EXPECT_GE(seen.size(), 2u);
}

TEST(BatchRunnerTest, DestroyedMidBatchWaitsForRunningTasksAndStartsNoMore) {
  // The caller unwinding (an exception) while workers run a batch: the destructor must not
  // return while a task may still touch the caller's data, and must not start new tasks.
  std::atomic<int> started{0}, finished{0};
  {
    BatchRunner runner(3);
    runner.start(1000, [&](std::size_t) {
      started.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      finished.fetch_add(1);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  int after = finished.load();
  EXPECT_EQ(started.load(), after) << "every started task finished before the destructor returned";
  EXPECT_LT(after, 1000) << "the rest of the batch was not run";
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(finished.load(), after) << "nothing runs after the destructor";
}

TEST(BatchRunnerTest, WithOneThreadTheCallerRunsTheTasksInFinish) {
  BatchRunner runner(1);
  std::vector<std::thread::id> ids;
  runner.start(3, [&](std::size_t) { ids.push_back(std::this_thread::get_id()); });
  EXPECT_TRUE(ids.empty()) << "nothing runs before finish() without workers";
  runner.finish();
  ASSERT_EQ(ids.size(), 3u);
  for (auto id : ids) EXPECT_EQ(id, std::this_thread::get_id());
}

}  // namespace
}  // namespace zf::pipeline
