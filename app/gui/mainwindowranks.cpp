// MainWindow: which ranks of a distributed run the timeline shows (the rank choice of the load
// options), and the status line that says so.

#include "app/gui/mainwindow.h"

#include "core/analysis/distributed/summaryreduce.h"
#include "core/io/runfit.h"
#include "core/io/runranks.h"

#include <QDir>
#include <QFileInfo>
#include <QStatusBar>

#include <algorithm>

namespace tracedesk::app {

void MainWindow::setRankChoice(const QList<qint64> &ranks)
{
    core::LoadOptions options = m_loads->options();
    options.ranks.assign(ranks.begin(), ranks.end());
    std::sort(options.ranks.begin(), options.ranks.end());
    options.ranks.erase(std::unique(options.ranks.begin(), options.ranks.end()),
                        options.ranks.end());
    // Without a choice, a run too large for memory opens the ranks that fit instead of failing;
    // a choice (even of every rank) is the user's and is opened as asked.
    options.fitRanksToMemory = true;
    m_loads->setOptions(options);
}

void MainWindow::openRunRanks(const QString &path, const QList<qint64> &ranks)
{
    if (path.isEmpty())
        return;
    if (core::analysis::distributed::isSummaryFolder(path.toStdString())) {
        openSummaryFolder(path, ranks);
        return;
    }
    setRankChoice(ranks);
    m_loads->start(QDir::cleanPath(QFileInfo(path).absoluteFilePath()));
}

void MainWindow::openWithGraphCapture(const QString &path, const QString &capture)
{
    if (path.isEmpty())
        return;
    setRankChoice({});
    // For this load only: a later File > Open is no replay of this capture.
    core::LoadOptions options = m_loads->options();
    const core::LoadOptions plain = options;
    options.graphCapture = QDir::cleanPath(QFileInfo(capture).absoluteFilePath()).toStdString();
    m_loads->setOptions(options);
    m_loads->start(QDir::cleanPath(QFileInfo(path).absoluteFilePath()));
    m_loads->setOptions(plain);
}

void MainWindow::reopenWithRanks(const QList<qint64> &ranks)
{
    if (m_openedPath.isEmpty() || ranks.isEmpty())
        return;
    // The step alignment stays in the options; several dropped files reopen as one run.
    setRankChoice(ranks);
    m_loads->start(m_openedPath);
}

void MainWindow::showRankNote()
{
    if (!m_trace)
        return;
    QString shown;
    bool tooLarge = false;
    for (const std::string &w : m_trace->info.warnings) {
        if (shown.isEmpty() && core::isShownRanksNote(w))
            shown = QString::fromStdString(w);
        tooLarge = tooLarge || core::isRunFitNote(w);
    }
    if (shown.isEmpty())
        return;
    if (tooLarge)
        shown += tr(" (the whole run does not fit in memory)");
    statusBar()->showMessage(tr("Timeline: %1 — the Distributed panel summarises every rank; "
                                "choose others with its Ranks on Timeline…")
                                 .arg(shown),
                             30000);
}

} // namespace tracedesk::app
