#pragma once

namespace ds::h5 {

/// The main function of dumpscope-h5worker (app/h5worker/main.cpp), the process libhdf5 runs
/// in (h5isolate.h). Started as `dumpscope-h5worker --h5-worker <protocol> <parent pid>` with
/// the descriptors of h5protocol.h, it reads one request, answers it (a load waits for its
/// go-ahead and answers again) and ends with _exit(): no static destructors and no leak check
/// (libhdf5 leaks on damaged files; the in-process tests check our own code for leaks).
/// Exit codes: 0 answered (or the parent said no more), 2 an exception, 3 a request that is
/// not one, 4 the answer could not be written; a usage error prints a line and returns 64.
/// It kills itself when the parent dies (PR_SET_PDEATHSIG), so nothing keeps running for a
/// DumpScope that was killed.
int workerMain(int argc, char **argv);

} // namespace ds::h5
