// SPDX-License-Identifier: MIT
// EngineCall (engine_call.hpp): the calls inside the engine, counted, and drained at exit.
#include "engine_call.hpp"

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace zf::python {
namespace py = pybind11;

namespace {

struct Calls {
  std::mutex mutex;
  std::condition_variable drained;
  long inside = 0;  // between an EngineCall's release of the GIL and its re-take
  bool exiting = false;
  std::thread::id exit_thread;  // the thread that ran the exit hook
};

// Never destroyed: a thread blocked for good (and any engine call the exit did not wait for)
// still uses it while the process runs its static destructors. A forked child gets a fresh
// one: the parent's other threads, and any lock they held, are not in the child.
Calls* calls = new Calls;

// After the exit hook, only the thread that runs the exit takes the GIL again.
bool turned_away(const Calls& c) {
  return c.exiting && std::this_thread::get_id() != c.exit_thread;
}

[[noreturn]] void block_forever() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

// atexit, so before Py_FinalizeEx marks the runtime finalizing: until this returns, no
// thread is ended for taking the GIL.
void drain_engine_calls() {
  PyThreadState* state = PyEval_SaveThread();
  {
    std::unique_lock lock(calls->mutex);
    calls->exiting = true;
    calls->exit_thread = std::this_thread::get_id();
    calls->drained.wait(lock, [] { return calls->inside == 0; });
  }
  PyEval_RestoreThread(state);
}

}  // namespace

EngineCall::EngineCall() {
  bool turned = false;
  {
    std::lock_guard lock(calls->mutex);
    turned = turned_away(*calls);
    if (!turned) ++calls->inside;
  }
  state_ = PyEval_SaveThread();
  if (turned) block_forever();
}

EngineCall::~EngineCall() {
  {
    std::unique_lock lock(calls->mutex);
    if (turned_away(*calls)) {
      --calls->inside;
      lock.unlock();
      calls->drained.notify_all();
      block_forever();
    }
  }
  // Still counted, so the exit hook waits for this: the runtime is not finalizing yet.
  PyEval_RestoreThread(state_);
  {
    std::lock_guard lock(calls->mutex);
    --calls->inside;
  }
  calls->drained.notify_all();
}

void register_engine_calls(py::module_& module) {
  static bool registered = false;
  if (!registered) {
    registered = true;
    pthread_atfork(nullptr, nullptr, [] { calls = new Calls; });
    py::module_::import("atexit").attr("register")(py::cpp_function(&drain_engine_calls));
  }
  module.def("_engine_calls", [] {
    std::lock_guard lock(calls->mutex);
    return calls->inside;
  });
}

}  // namespace zf::python
