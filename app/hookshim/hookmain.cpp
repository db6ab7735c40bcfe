// countersign-hook: `countersign hook CLIENT` as a program of its own, linking only the C++ library and
// nlohmann/json, so that a client's hook starts fast (the full binary loads every library of the window
// first).
#include "hookshim.h"

int main(int argc, char **argv)
{
    return Countersign::runHookShim(argc, argv, 1);
}
