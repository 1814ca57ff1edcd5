#pragma once

// `mpirun -n N dumpscope-cli compare RUN_A RUN_B ...` and `info|overflow PATH` (issue 17,
// docs/DISTRIBUTED.md).
//
// A thin distribution layer of the CLI over core/run's scope-level API; MPI stays out of core
// and the GUI. Every process walks the paths it was given (the same on shared storage, its own
// on node-local disks), fingerprints the scopes it sees and sends that catalog to rank 0. Rank 0
// pairs the scopes of the union exactly as one process would (pairScopes), checks that a scope
// seen by several processes has the same files everywhere, and hands every pair to one process
// that sees both sides (largest scopes first, to the least loaded). Each process compares its
// pairs where the data is and sends back per-scope summaries and rendered rows (never tensors);
// rank 0 writes the CSV, JSON and text one process would write on the union.
//
// Failures are bounded: every process sends a heartbeat while it works or waits, rank 0 gives up
// on a process silent for --mpi-timeout seconds (it died, hangs or the network is gone) and
// names its node and paths; a process that cannot read its paths, a scope seen with different
// contents by two processes, or a pair no process can see whole are reported by rank 0 with the
// node and path. Communication errors return (MPI_ERRORS_RETURN) instead of aborting.

#include "comparecommand.h"
#include "scancommand.h"

namespace ds {

/// Initialises MPI when a launcher started this process (mpirun/mpiexec: OMPI_COMM_WORLD_SIZE;
/// srun --mpi=pmix and other PMIx launchers: PMIX_RANK; PMI-1/2: PMI_RANK) and returns the
/// number of processes; 1 without a launcher (MPI is not even initialised) or when alone.
int distributedInit(int *argc, char ***argv);
/// This process's rank (0 without a launcher).
int distributedRank();
/// Finalises MPI when distributedInit initialised it.
void distributedFinalize();

/// The compare of `c` spread over all processes; returns this process's exit code (rank 0: the
/// one runCompareCommand would return, 5 when a process failed; other ranks: 0 unless they failed).
int runDistributedCompare(const CompareCommand &c, double timeoutSeconds);

/// `info` or `overflow` of `c` spread over all processes: every process indexes and scans the
/// scopes rank 0 hands it (among those it sees), and sends its part (scancommand.h); rank 0
/// writes the report one process writes on the union. Exit codes as runDistributedCompare.
int runDistributedScan(const ScanCommand &c, double timeoutSeconds);

} // namespace ds
