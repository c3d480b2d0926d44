// SPDX-License-Identifier: MIT
// The GIL released around engine work, safely at interpreter exit: a call still inside the
// engine when Python finalizes never re-takes the GIL (which would end its thread mid-C++).
#pragma once

#include <pybind11/pybind11.h>

namespace zf::python {

/// Releases the GIL for its lifetime, as pybind11::gil_scoped_release does, for the engine
/// work in between (which must not touch Python objects). Unlike gil_scoped_release, it is
/// safe when the interpreter exits while the call is inside the engine:
///
/// - CPython ends a thread that takes the GIL once finalization has begun (PyEval_RestoreThread
///   calls pthread_exit); from gil_scoped_release's destructor, a noexcept frame, that unwind
///   is std::terminate: the whole process aborts.
/// - So the interpreter's exit (an atexit hook, register_engine_calls) first waits, with the
///   GIL released, for every call inside the engine to finish and take the GIL back; only
///   then does finalization begin, and the engine's static data is never destroyed under a
///   running call.
/// - A daemon thread that starts or ends an engine call after that never takes the GIL: it
///   blocks forever (the process is exiting; Python 3.14 blocks such threads the same way). The
///   thread that runs the exit hooks itself (atexit functions that call zeroforge) is served
///   as usual.
///
///     {
///       EngineCall unlocked;
///       result = zf::render(request);
///     }
class EngineCall {
 public:
  EngineCall();
  ~EngineCall();
  EngineCall(const EngineCall&) = delete;
  EngineCall& operator=(const EngineCall&) = delete;

 private:
  PyThreadState* state_;
};

/// Registers the exit hook (atexit) that drains the engine calls before Python finalizes, and
/// `_engine_calls()`, the number of calls inside the engine now (for the tests).
void register_engine_calls(pybind11::module_& module);

}  // namespace zf::python
