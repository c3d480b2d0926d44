// SPDX-License-Identifier: MIT
// Runs the tasks of one batch on several threads: the caller's thread and a few workers that
// live as long as the runner. `generate` prepares the next batch of configs on the caller's
// thread while the workers render the current one, then helps finish it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace zf::pipeline {

class BatchRunner {
 public:
  /// `threads` counts the caller's thread: 1 runs every task on the caller's thread in finish().
  explicit BatchRunner(unsigned threads);
  /// Starts no more tasks, waits for those running, and stops the workers; so declare the
  /// runner after what its tasks use, and it is destroyed first.
  ~BatchRunner();
  BatchRunner(const BatchRunner&) = delete;
  BatchRunner& operator=(const BatchRunner&) = delete;

  /// Lets the workers start on task(0) ... task(count - 1), in any order and concurrently,
  /// and returns at once. `task` must not throw. The previous batch must be finished.
  void start(std::size_t count, std::function<void(std::size_t)> task);
  /// Runs what is left of the started batch on this thread too; returns when every task of it
  /// has returned and no worker is touching it any more.
  void finish();

 private:
  void work(bool caller);
  void worker_loop();

  std::mutex mutex_;
  std::condition_variable wake_;      // a batch was started, or the runner is closing
  std::condition_variable finished_;  // the last task of the batch returned / a worker went idle
  std::function<void(std::size_t)> task_;
  std::size_t count_ = 0;
  std::size_t next_ = 0;        // the next task to hand out
  std::size_t done_ = 0;        // tasks that returned
  std::size_t active_ = 0;      // workers inside the current batch
  std::size_t generation_ = 0;  // batches started
  bool closing_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace zf::pipeline
