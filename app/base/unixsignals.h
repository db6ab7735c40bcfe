#pragma once

class QCoreApplication;

namespace Countersign {

// SIGTERM, SIGINT and SIGHUP end the event loop (app->quit()), so the server stops listening, the
// database closes and the window goes, as with Quit. The handler only writes a byte to a socket
// pair; everything else happens in the event loop.
void quitOnTerminationSignals(QCoreApplication *app);

} // namespace Countersign
