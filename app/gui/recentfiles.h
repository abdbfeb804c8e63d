#pragma once

// RecentFiles: the File > Open Recent list, shared by every window of the process. Writing it
// is the worker's job: QSettings syncs with an fsync under a lock file, which held the GUI
// thread for 40 ms and more when a load was writing its store cache at the same moment. Until
// a write has reached the settings, list() answers with the list it holds.
//
// Thread rules: call from the GUI thread; the writes run on a worker.

#include <QStringList>

namespace tracedesk::app {

class RecentFiles
{
public:
    static QStringList list();
    // Replaces the list (empty: forgets it) and writes it in the background.
    static void set(const QStringList &files);
    // Blocks until the latest list is in the settings (tests, before they clear the settings).
    static void flush();
};

} // namespace tracedesk::app
