#include "app/gui/comparecontroller.h"

#include "app/gui/analysisdocks.h"
#include "app/gui/loadcontroller.h"
#include "app/gui/mainwindow.h"
#include "views/compare/compareworkspace.h"
#include "views/timeline/timelinewidget.h"

#include <QDir>
#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStackedWidget>
#include <QStatusBar>

namespace tracedesk::app {

namespace {
constexpr int kProgressSteps = 1000;

// The analysis panels keep showing one side during a comparison: their titles say which
// ("Overview (A)"; the window title names both files); an empty `side` restores the plain
// titles.
void labelAnalysisSide(AnalysisDocks *docks, const QString &side)
{
    for (QDockWidget *dock : docks->docks()) {
        QVariant base = dock->property("plainTitle");
        if (!base.isValid()) {
            base = dock->windowTitle();
            dock->setProperty("plainTitle", base);
        }
        dock->setWindowTitle(side.isEmpty() ? base.toString()
                                            : base.toString() + QStringLiteral(" (") + side
                                                  + QLatin1Char(')'));
    }
}
} // namespace

CompareController::CompareController(MainWindow *window, QStackedWidget *central)
    : QObject(window)
    , m_window(window)
    , m_central(central)
    , m_loads(new LoadController(this))
    , m_workspace(new views::CompareWorkspace)
{
    m_workspace->setObjectName(QStringLiteral("CompareWorkspace"));
    // A page of the central stack sets the stack's minimum size even while hidden; the
    // workspace scrolls its own parts, so it need not demand its natural size.
    m_workspace->setMinimumSize(320, 240);
    m_central->addWidget(m_workspace);
    connect(m_loads, &LoadController::loaded, this,
            [this](core::TracePtr trace, const QString &name, const QString &) {
                onLoaded(std::move(trace), name);
            });
    connect(m_loads, &LoadController::failed, this,
            [this](const QString &message, const QString &) { onFailed(message); });
    connect(m_loads, &LoadController::cancelled, this, [this] {
        closeProgress();
        m_wanted = false;
        m_window->statusBar()->showMessage(tr("Comparison cancelled"), 5000);
    });
    connect(m_loads, &LoadController::progressChanged, this,
            [this](double fraction, quint64, quint64 total) {
                if (!m_progress)
                    return;
                if (total == 0) {
                    m_progress->setRange(0, 0);
                    return;
                }
                m_progress->setRange(0, kProgressSteps);
                m_progress->setValue(int(fraction * kProgressSteps));
            });
    connect(m_workspace, &views::CompareWorkspace::closeRequested, this,
            [this](views::CompareWorkspace::Side side) { closeSide(int(side)); });
    // The docks show the window's own profile; after Swap A/B that profile is side B.
    connect(m_workspace, &views::CompareWorkspace::comparisonReady, this, [this] {
        using Side = views::CompareWorkspace::Side;
        if (!m_window->trace())
            return;
        const bool ownIsA = m_workspace->trace(Side::SideA) == m_window->trace();
        labelAnalysisSide(m_window->analysisDocks(), ownIsA ? tr("A") : tr("B"));
    });
}

CompareController::~CompareController() = default;

void CompareController::compareWith(const QString &path)
{
    if (path.isEmpty())
        return;
    m_wanted = true;
    m_b.reset();
    m_lastError.clear();
    const QString absolute = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    closeProgress();
    m_progress = new QProgressDialog(
        tr("Loading %1 to compare…").arg(QFileInfo(absolute).fileName()), tr("Cancel"), 0, 0,
        m_window);
    m_progress->setObjectName(QStringLiteral("CompareProgress"));
    m_progress->setWindowTitle(tr("Compare"));
    m_progress->setMinimumDuration(300);
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    connect(m_progress, &QProgressDialog::canceled, m_loads, &LoadController::cancel);
    m_window->statusBar()->showMessage(
        tr("Loading %1 to compare…").arg(QDir::toNativeSeparators(absolute)));
    m_loads->start(absolute);
}

bool CompareController::isComparing() const
{
    return m_central->currentWidget() == m_workspace;
}

bool CompareController::isLoading() const
{
    return m_loads->isLoading();
}

void CompareController::onTraceShown()
{
    // A new A while a comparison is wanted: compare it once B is there; otherwise a new trace
    // ends the comparison (the window shows it alone).
    if (m_wanted) {
        showIfReady();
    } else if (isComparing()) {
        m_workspace->clear();
        labelAnalysisSide(m_window->analysisDocks(), {});
        restoreAnalysisDocks();
    }
}

void CompareController::onLoaded(core::TracePtr trace, const QString &displayName)
{
    closeProgress();
    m_window->statusBar()->clearMessage();
    m_b = std::move(trace);
    m_nameB = displayName;
    showIfReady();
}

void CompareController::onFailed(const QString &message)
{
    closeProgress();
    m_wanted = false;
    m_lastError = message;
    m_window->statusBar()->showMessage(tr("Comparison failed"), 5000);
    emit failed(message);
}

void CompareController::showIfReady()
{
    if (!m_wanted || !m_b || !m_window->trace())
        return;
    m_wanted = false;
    const core::analysis::AnalysisCachePtr a = m_window->analysisDocks()->cache();
    auto b = std::make_shared<core::analysis::AnalysisCache>(m_b);
    m_workspace->setAnalyses(a, m_window->displayName(), std::move(b), m_nameB);
    m_central->setCurrentWidget(m_workspace);
    const QString nameA = m_workspace->name(views::CompareWorkspace::SideA);
    const QString nameB = m_workspace->name(views::CompareWorkspace::SideB);
    labelAnalysisSide(m_window->analysisDocks(), tr("A"));
    hideAnalysisDocks();
    m_window->setWindowTitle(tr("TraceDesk — %1 vs %2").arg(nameA, nameB));
    emit comparisonShown();
}

void CompareController::closeSide(int side)
{
    // The workspace may have swapped its sides: keep whatever it shows on the other one.
    const auto keep = side == int(views::CompareWorkspace::SideA)
                          ? views::CompareWorkspace::SideB
                          : views::CompareWorkspace::SideA;
    core::TracePtr trace = m_workspace->trace(keep);
    const QString name = m_workspace->name(keep);
    m_workspace->clear();
    labelAnalysisSide(m_window->analysisDocks(), {});
    restoreAnalysisDocks();
    m_b.reset();
    m_central->setCurrentWidget(m_window->timeline());
    if (trace)
        m_window->showTrace(std::move(trace), name);
}

// Two timelines and the tables between them need the window's height: the single-trace panels
// step aside while comparing (View brings any back) and return when the comparison ends.
void CompareController::hideAnalysisDocks()
{
    if (!m_hiddenDocks.isEmpty())
        return;
    std::vector<QDockWidget *> docks = m_window->analysisDocks()->docks();
    docks.push_back(m_window->detailsDock()); // it follows the single trace's timeline
    for (QDockWidget *dock : docks) {
        // A tabbed panel behind another is open though not visible: its view action says so.
        if (dock->toggleViewAction()->isChecked() && !dock->isFloating()) {
            m_hiddenDocks.append(dock);
            dock->hide();
        }
    }
}

void CompareController::restoreAnalysisDocks()
{
    for (const QPointer<QDockWidget> &dock : std::as_const(m_hiddenDocks)) {
        if (dock)
            dock->show();
    }
    m_hiddenDocks.clear();
}

void CompareController::closeProgress()
{
    if (!m_progress)
        return;
    m_progress->disconnect(this);
    m_progress->cancel();   // stops the timer that would show the dialog after its delay
    m_progress->hide();
    m_progress->deleteLater();
    m_progress = nullptr;
}

} // namespace tracedesk::app
