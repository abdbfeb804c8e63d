#include "app/gui/recentfiles.h"

#include "core/base/threadpriority.h"
#include "views/common/jobreaper.h"

#include <QSettings>

#include <mutex>
#include <optional>
#include <thread>

namespace tracedesk::app {

namespace {

const char kRecentKey[] = "recentFiles";

struct Pending
{
    std::mutex mutex;                    // guards latest
    std::optional<QStringList> latest;   // set and not yet in the settings
    std::mutex write;                    // one settings write at a time
};

Pending &pending()
{
    static Pending state;
    return state;
}

// Writes the latest list, whichever writer gets there: writers may run in any order, and each
// writes what is newest when it runs.
void writeLatest()
{
    Pending &p = pending();
    std::lock_guard write(p.write);
    std::optional<QStringList> files;
    {
        std::lock_guard lock(p.mutex);
        files = p.latest;
    }
    if (!files)
        return;
    {
        QSettings settings;
        if (files->isEmpty())
            settings.remove(kRecentKey);
        else
            settings.setValue(kRecentKey, *files);
    }   // synced here
    std::lock_guard lock(p.mutex);
    if (p.latest == files)
        p.latest.reset();
}

} // namespace

QStringList RecentFiles::list()
{
    {
        Pending &p = pending();
        std::lock_guard lock(p.mutex);
        if (p.latest)
            return *p.latest;
    }
    return QSettings().value(kRecentKey).toStringList();
}

void RecentFiles::set(const QStringList &files)
{
    {
        Pending &p = pending();
        std::lock_guard lock(p.mutex);
        p.latest = files;
    }
    views::JobReaper::adopt(std::thread([] {
        core::lowerThisThreadPriority();
        writeLatest();
    }));
}

void RecentFiles::flush()
{
    writeLatest();
}

} // namespace tracedesk::app
