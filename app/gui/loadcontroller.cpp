#include "app/gui/loadcontroller.h"

#include "core/base/threadpriority.h"
#include "core/io/traceloader.h"
#include "views/common/jobreaper.h"

#include <algorithm>

namespace tracedesk::app {

namespace {
constexpr int kProgressIntervalMs = 50;
}

LoadController::LoadController(QObject *parent)
    : QObject(parent)
    , m_loader([](const std::string &path, core::LoadControl *control,
                  const core::LoadOptions &options) -> core::Result<LoadedTrace> {
        // Several dropped files come as one newline-separated string (startFiles()).
        std::vector<std::string> paths;
        for (size_t from = 0, at; from <= path.size(); from = at + 1) {
            at = std::min(path.find('\n', from), path.size());
            if (at > from)
                paths.push_back(path.substr(from, at - from));
        }
        auto source = paths.size() > 1 ? core::resolveSources(paths, options.runName)
                                       : core::resolveSource(path, options.runName);
        if (!source)
            return source.error();
        core::DeferredCacheWrite cacheWrite;
        auto trace = core::loadResolved(source.value(), control, options, &cacheWrite);
        if (!trace)
            return trace.error();
        return LoadedTrace{trace.value(), QString::fromStdString(source.value().displayName),
                           std::move(cacheWrite)};
    })
{
    m_progressTimer.setInterval(kProgressIntervalMs);
    connect(&m_progressTimer, &QTimer::timeout, this, &LoadController::pollProgress);
}

LoadController::~LoadController()
{
    *m_stopCacheWrites = true;
    for (Job &job : m_jobs)
        job.control->requestCancel();
    // Workers post their result to this object; joining here guarantees none is still running
    // when it is gone (posted events for a deleted receiver are discarded by Qt).
    for (Job &job : m_jobs) {
        if (job.thread.joinable())
            job.thread.join();
    }
}

void LoadController::start(const QString &path)
{
    if (m_current)
        m_current->requestCancel();
    const quint64 generation = ++m_generation;
    auto control = std::make_shared<core::LoadControl>();
    m_current = control;
    m_currentPath = path;

    Job job;
    job.generation = generation;
    job.control = control;
    job.thread = std::thread([this, generation, control, loader = m_loader, options = m_options,
                              file = path.toStdString(), stop = m_stopCacheWrites] {
        core::lowerThisThreadPriority();
        core::Result<LoadedTrace> result = loader(file, control.get(), options);
        core::DeferredCacheWrite cacheWrite =
            result.ok() ? std::move(result.value().cacheWrite) : core::DeferredCacheWrite();
        QMetaObject::invokeMethod(
            this, [this, generation, result = std::move(result)]() mutable {
                deliver(generation, std::move(result));
            },
            Qt::QueuedConnection);
        // After the hand-over this worker touches only what the write holds (the trace and
        // the stop flag), never `this`: the reaper may be the one to join it.
        if (cacheWrite)
            cacheWrite(stop.get());
    });
    m_jobs.push_back(std::move(job));
    m_progressTimer.start();
    emit started(path);
}

void LoadController::cancel()
{
    if (!m_current)
        return;
    m_current->requestCancel();
    m_current.reset();
    m_progressTimer.stop();
    // The worker's eventual result belongs to a dead generation and is dropped.
    ++m_generation;
    const QString path = m_currentPath;
    m_currentPath.clear();
    emit cancelled(path);
}

double LoadController::progress() const
{
    return m_current ? m_current->fraction() : 0.0;
}

void LoadController::pollProgress()
{
    if (!m_current)
        return;
    emit progressChanged(m_current->fraction(), m_current->done(), m_current->total());
}

void LoadController::reapJob(quint64 generation)
{
    auto it = std::find_if(m_jobs.begin(), m_jobs.end(),
                           [&](const Job &j) { return j.generation == generation; });
    if (it == m_jobs.end())
        return;
    // The worker has posted its result and no longer touches this object, but it may still be
    // freeing what the load left behind, at low priority: the reaper joins it, not the GUI.
    if (it->thread.joinable())
        views::JobReaper::adopt(std::move(it->thread));
    m_jobs.erase(it);
}

void LoadController::deliver(quint64 generation, core::Result<LoadedTrace> result)
{
    reapJob(generation);
    if (generation != m_generation || !m_current)
        return;
    const QString path = m_currentPath;
    m_current.reset();
    m_currentPath.clear();
    m_progressTimer.stop();

    if (result.ok() && result.value().trace) {
        const LoadedTrace &done = result.value();
        emit loaded(done.trace, done.displayName.isEmpty() ? path : done.displayName, path);
    } else if (result.ok()) {
        emit failed(tr("%1: the loader returned no trace").arg(path), path);
    } else if (result.isCancelled()) {
        emit cancelled(path);
    } else {
        emit failed(QString::fromStdString(result.message()), path);
    }
}

} // namespace tracedesk::app
