#pragma once

#include <functional>
#include <utility>

namespace Countersign {

// How a call reached the server: HTTP on loopback, a stdio client through its bridge, or the local
// socket itself (the hook shim).
enum class Transport { Http, Stdio, Unix };

// A call its client may cancel while it waits (a 2025-11-25 task: tasks/cancel). Whatever holds
// the call sets onCancel to end its wait; once cancelled, nothing more of the call runs.
struct CallCancel final
{
    bool cancelled = false;
    std::function<void()> onCancel;

    void cancel()
    {
        if (cancelled)
            return;
        cancelled = true;
        if (auto wake = std::exchange(onCancel, {}))
            wake();
    }
};

} // namespace Countersign
