// dumpscope-h5worker: the process libhdf5 runs in (core/formats/h5/h5workermain.h).
#include "formats/h5/h5workermain.h"

int main(int argc, char **argv)
{
    return ds::h5::workerMain(argc, argv);
}
