#include "app/gui/mainwindow.h"

#include "app/gui/aboutbox.h"
#include "app/gui/analysisdocks.h"
#include "app/gui/comparecontroller.h"
#include "app/gui/preferences.h"
#include "app/gui/recentfiles.h"
#include "app/gui/windowlayout.h"

#include "core/io/graphcapturepair.h"
#include "core/io/runranks.h"
#include "core/io/legacyrun.h"
#include "views/capture/capturedialog.h"
#include "views/common/appicon.h"
#include "views/compare/dropchoiceoverlay.h"
#include "views/common/placeholderpanel.h"
#include "views/common/tracesummary.h"
#include "views/timeline/detailspane.h"
#include "views/timeline/shortcutshelp.h"
#include "views/timeline/timelinewidget.h"
#include "views/timeline/trackreveal.h"
#include "views/tracktree/trackspanel.h"
#include "views/tracktree/tracktreemodel.h"

#include <algorithm>

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabBar>
#include <QTimer>
#include <QTreeView>

#include <cstdio>

namespace tracedesk::app {

namespace {

constexpr int kProgressSteps = 1000;

const char kPlainStatus[] = "plainStatus";

// The trace's summary; its " · N warnings" part is a link (see showLoadWarnings).
void showTraceStatus(QLabel *label, const core::Trace &trace)
{
    const QString plain = views::traceStatusText(trace);
    label->setProperty(kPlainStatus, plain);
    const int at = plain.lastIndexOf(QStringLiteral(" · "));
    if (trace.info.warningCount == 0 || at < 0) {
        label->setTextFormat(Qt::PlainText);
        label->setText(plain);
        label->setToolTip({});
        return;
    }
    label->setTextFormat(Qt::RichText);
    label->setText(plain.left(at).toHtmlEscaped() + QStringLiteral(" · <a href=\"warnings\">")
                   + plain.mid(at + 3).toHtmlEscaped() + QStringLiteral("</a>"));
    label->setToolTip(MainWindow::tr("Click to see the warnings of this load"));
}

// The load's warnings: the first ones the loader kept, and how many there were in all.
void showLoadWarnings(QWidget *parent, const core::TracePtr &trace)
{
    if (!trace || trace->info.warningCount == 0)
        return;
    QStringList lines;
    for (const std::string &w : trace->info.warnings)
        lines << QString::fromStdString(w);
    auto *box = new QMessageBox(QMessageBox::Warning, MainWindow::tr("Load warnings"),
                                MainWindow::tr("%n warning(s) while loading this profile.", nullptr,
                                               int(trace->info.warningCount)),
                                QMessageBox::Close, parent);
    box->setObjectName(QStringLiteral("LoadWarnings"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QString shown = lines.join(QLatin1Char('\n'));
    if (quint64(lines.size()) < trace->info.warningCount)
        shown += MainWindow::tr("\n… and %1 more of the same kinds.")
                     .arg(trace->info.warningCount - quint64(lines.size()));
    box->setInformativeText(shown);
    box->open();
}

void showLegacyRunNote(views::PlaceholderPanel *placeholder, const QString &name,
                       const std::string &dir)
{
    const core::legacy::LegacyRunContents contents = core::legacy::legacyRunContents(dir);
    QStringList tools, hosts;
    for (const std::string &t : contents.tools)
        tools << QString::fromStdString(t);
    for (const std::string &h : contents.hosts)
        hosts << QString::fromStdString(h);
    placeholder->showNote(
        name,
        MainWindow::tr("A run folder from an older profiler plugin: it holds the results of %1 "
                       "for %n host(s) (%2), but no trace events, so there is no timeline.",
                       nullptr, int(hosts.size()))
            .arg(tools.join(QStringLiteral(", ")), hosts.join(QStringLiteral(", "))),
        MainWindow::tr("The analysis panels below show the recorded results."));
}

// The loader counts work, not file bytes (a JSON file is counted once read and once parsed),
// so the dialog shows the share done and the size of the file on disk.
QString loadProgressText(const QString &path, double fraction)
{
    const QFileInfo info(path);
    const QString percent = QString::number(int(fraction * 100)) + QStringLiteral(" %");
    if (!info.isFile())
        return MainWindow::tr("Loading %1…  %2").arg(info.fileName(), percent);
    return MainWindow::tr("Loading %1…  %2 of %3 MB")
        .arg(info.fileName(), percent)
        .arg(double(info.size()) / 1e6, 0, 'f', 1);
}
const char kOpenFilter[] = QT_TRANSLATE_NOOP(
    "tracedesk::app::MainWindow",
    "Profiles (*.xplane.pb *.json *.json.gz *.json.zst *.sqlite *.nsys-rep *.csv *.db *.rpd);;"
    "Nsight Systems exports (*.sqlite);;"
    "rocprofv3 results (*_results.json *_results.json.gz *_results.db *.csv);;"
    "rocmProfileData traces (*.rpd);;All files (*)");

// The first local file or folder among the dragged URLs, or an empty string.
QString firstLocalPath(const QMimeData *mime)
{
    if (!mime || !mime->hasUrls())
        return {};
    for (const QUrl &url : mime->urls()) {
        if (url.isLocalFile())
            return url.toLocalFile();
    }
    return {};
}

// The dragged local files when there are several (a run of rank traces or hosts), else empty.
QStringList severalLocalFiles(const QMimeData *mime)
{
    QStringList files;
    if (!mime || !mime->hasUrls())
        return files;
    for (const QUrl &url : mime->urls()) {
        if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile())
            files << QDir::cleanPath(QFileInfo(url.toLocalFile()).absoluteFilePath());
    }
    return files.size() > 1 ? files : QStringList();
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_loads(new LoadController(this))
    , m_trackModel(new views::TrackTreeModel(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    // The theme only when one was chosen: "System" leaves the application as it started.
    const views::Preferences preferences = loadPreferences();
    applyPreferences(preferences, m_loads, preferences.theme != views::Theme::System);
    setWindowIcon(views::appIcon());
    setAcceptDrops(true);
    // Until a saved geometry says otherwise: most of the screen the window opens on.
    if (QScreen *screen = openingScreen())
        setGeometry(fittedGeometry(screen->availableGeometry()));
    else
        resize(1400, 860);

    m_placeholder = new views::PlaceholderPanel;
    m_timeline = new views::TimelineWidget;
    m_central = new QStackedWidget;
    m_central->setObjectName(QStringLiteral("CentralStack"));
    m_central->addWidget(m_placeholder);
    m_central->addWidget(m_timeline);
    setCentralContent(m_central);
    new PointerFocus(m_timeline->canvasWidget());
    new TimelineKeys(m_timeline->canvasWidget());

    m_statusLabel = new QLabel(this);
    m_statusLabel->setObjectName(QStringLiteral("TraceStatus"));
    m_statusLabel->setText(tr("No profile open"));
    // No stretch: a stretched permanent label takes the whole bar and hides every transient
    // message (showMessage) behind it.
    statusBar()->addPermanentWidget(m_statusLabel);
    // "N warnings" is a link to the list of the load's warnings.
    connect(m_statusLabel, &QLabel::linkActivated, this,
            [this] { showLoadWarnings(this, m_trace); });

    createDocks();
    m_analysis = new AnalysisDocks(this, m_timeline);
    connect(m_analysis, &AnalysisDocks::alignRequested, this, &MainWindow::reopenAlignedAt);
    connect(m_analysis, &AnalysisDocks::ranksRequested, this, &MainWindow::reopenWithRanks);
    connect(m_details, &views::DetailsPane::analysisRequested, m_analysis,
            &AnalysisDocks::showSelectionAnalysis);
    connect(m_details, &views::DetailsPane::graphRequested, m_analysis, &AnalysisDocks::showGraph);
    m_compare = new CompareController(this, m_central);
    connect(m_compare, &CompareController::failed, this, &MainWindow::showError);
    m_dropOverlay = new views::DropChoiceOverlay(this);
    m_dropOverlay->hide();
    createMenus();
    restoreWindowState();
    updateTitle();

    connect(m_loads, &LoadController::started, this, &MainWindow::onLoadStarted);
    connect(m_loads, &LoadController::loaded, this, &MainWindow::onLoaded);
    connect(m_loads, &LoadController::failed, this, &MainWindow::onLoadFailed);
    connect(m_loads, &LoadController::cancelled, this, &MainWindow::onLoadCancelled);
    connect(m_loads, &LoadController::progressChanged, this, &MainWindow::onProgress);
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open…"), this, &MainWindow::openFileDialog);
    open->setShortcut(QKeySequence::Open);
    QAction *openFolder = file->addAction(tr("Open &Folder…"), this,
                                          &MainWindow::openFolderDialog);
    openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("RecentMenu"));
    rebuildRecentMenu();
    QAction *compare = file->addAction(tr("&Compare With…"), this, &MainWindow::compareFileDialog);
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    QAction *capture = file->addAction(tr("&Capture from Profiler Server…"), this,
                                       &MainWindow::openCaptureDialog);
    capture->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    file->addSeparator();
    QAction *newWindow = file->addAction(tr("&New Window"), this, [] { openInNewWindow({}); });
    newWindow->setShortcut(QKeySequence::New);
    file->addAction(tr("Open in New &Window…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Profile in New Window"),
                                                          QString(), tr(kOpenFilter));
        if (!path.isEmpty())
            openInNewWindow(path);
    });
    file->addSeparator();
    QAction *preferences = file->addAction(tr("&Preferences…"), this,
                                           [this] { showPreferences(this, m_loads); });
    preferences->setMenuRole(QAction::PreferencesRole);
    preferences->setShortcut(QKeySequence::Preferences);
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_tracksDock->toggleViewAction());
    view->addAction(m_detailsDock->toggleViewAction());
    QMenu *panels = view->addMenu(tr("&Analysis Panels"));
    m_analysis->addToggleActions(panels);
    view->addSeparator();
    QAction *find = view->addAction(tr("&Find Slices…"), m_timeline,
                                    &views::TimelineWidget::openSearch);
    find->setShortcut(QKeySequence::Find);
    find->setShortcutContext(Qt::WindowShortcut);
    view->addAction(tr("Show &Whole Trace"), m_timeline, &views::TimelineWidget::resetZoom);
    view->addSeparator();
    m_maximisePanel = view->addAction(tr("&Maximise Panel"));
    m_maximisePanel->setObjectName(QStringLiteral("MaximisePanelAction"));
    m_maximisePanel->setCheckable(true);
    m_maximisePanel->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    m_maximisePanel->setShortcutContext(Qt::WindowShortcut);
    m_maximisePanel->setToolTip(tr("Give the analysis panels the whole window, or restore"));
    connect(m_maximisePanel, &QAction::toggled, this, &MainWindow::setPanelMaximised);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *keys = help->addAction(tr("&Keyboard Shortcuts"), this,
                                    [this] { views::showTimelineShortcuts(this); });
    keys->setShortcut(QKeySequence(Qt::Key_F1));
    help->addSeparator();
    help->addAction(tr("&About TraceDesk"), this, [this] { showAbout(this); });
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

MainWindow *MainWindow::openInNewWindow(const QString &path)
{
    auto *window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->show();
    window->openPath(path);
    return window;
}

void MainWindow::createDocks()
{
    // Filter box, empty-plane toggle and tree; a click on a track or plane reveals it.
    auto *tracks = new views::TracksPanel(m_trackModel);
    m_trackView = tracks->treeView();
    connect(tracks, &views::TracksPanel::trackActivated, this,
            [this](uint32_t track) { views::revealTrack(m_timeline, track); });
    connect(tracks, &views::TracksPanel::planeActivated, this,
            [this](uint32_t plane) { views::revealPlane(m_timeline, plane); });

    m_tracksDock = new QDockWidget(tr("Tracks"), this);
    m_tracksDock->setObjectName(QStringLiteral("TracksDock"));
    m_tracksDock->setWidget(tracks);
    addDockWidget(Qt::LeftDockWidgetArea, m_tracksDock);
    resizeDocks({m_tracksDock}, {320}, Qt::Horizontal);

    m_details = new views::DetailsPane;
    m_details->setState(m_timeline->state());
    m_detailsDock = new QDockWidget(tr("Details"), this);
    m_detailsDock->setObjectName(QStringLiteral("DetailsDock"));
    m_detailsDock->setWidget(m_details);
    addDockWidget(Qt::BottomDockWidgetArea, m_detailsDock);
    resizeDocks({m_detailsDock}, {230}, Qt::Vertical);
    // An area summary opens where it has room: the docked pane widens (up to half the window,
    // never narrower than the user made it) so its number columns show.
    connect(m_details, &views::DetailsPane::summaryReady, this, [this] {
        if (m_detailsDock->isFloating() || !m_detailsDock->isVisible()
            || dockWidgetArea(m_detailsDock) != Qt::BottomDockWidgetArea)
            return;
        // Never so wide that the analysis tabs beside it get cut to "Ove...": their whole
        // titles come first, the summary scrolls sideways for its last columns. With more
        // tools than fit in half the window the tab row scrolls, and the summary gets the half.
        const QTabBar *bar = m_analysis->panelTabBar();
        const int tabs = bar ? std::min(bar->sizeHint().width() + 16, width() / 2) : 0;
        const int wanted = std::min({m_details->areaSummaryWidth(), width() / 2,
                                     width() - m_detailsDock->x() - tabs});
        if (m_detailsDock->width() >= wanted)
            return;
        // Both neighbours are sized: given the Details dock alone, the layout shares the change
        // out and the dock gets about half of it.
        QList<QDockWidget *> docks{m_detailsDock};
        QList<int> sizes{wanted};
        for (QDockWidget *dock : m_analysis->docks()) {
            if (!dock->isFloating() && dock->isVisible() && !dock->visibleRegion().isEmpty()
                && dockWidgetArea(dock) == Qt::BottomDockWidgetArea) {
                docks << dock;
                sizes << std::max(1, dock->width() - (wanted - m_detailsDock->width()));
                break;
            }
        }
        resizeDocks(docks, sizes, Qt::Horizontal);
    });
}

void MainWindow::setCentralContent(QWidget *widget)
{
    // The stack holding the placeholder and the timeline stays owned by the window when
    // something else takes its place, so the accessors never dangle.
    if (m_central && centralWidget() == m_central && widget != m_central) {
        takeCentralWidget();
        m_central->setParent(this);
        m_central->hide();
    }
    setCentralWidget(widget);
}

void MainWindow::openPath(const QString &path)
{
    openRunRanks(path, {});
}

void MainWindow::showTrace(core::TracePtr trace, const QString &displayName)
{
    if (!trace)
        return;
    m_trace = std::move(trace);
    m_displayName = displayName;
    m_trackModel->setTrace(m_trace, displayName);
    // Hosts and planes open; tracks are leaves.
    m_trackView->expandToDepth(0);
    m_placeholder->setTrace(m_trace, displayName);
    m_timeline->setTrace(m_trace);
    m_details->setTrace(m_trace);
    m_analysis->setTrace(m_trace);
    // A legacy per-tool run has no events: no empty timeline, but what the folder holds, and
    // the panels with its recorded results.
    const std::string legacyDir = core::legacy::legacyRunFolder(m_trace->info);
    if (!legacyDir.empty())
        showLegacyRunNote(m_placeholder, displayName, legacyDir);
    if (m_central && m_central == centralWidget())
        m_central->setCurrentWidget(legacyDir.empty() ? static_cast<QWidget *>(m_timeline)
                                                      : m_placeholder);
    // The timeline has the keyboard after a load, not whatever field had it before (the
    // Tracks filter would take W as text).
    if (legacyDir.empty() && !m_compare->isComparing())
        m_timeline->canvasWidget()->setFocus(Qt::OtherFocusReason);
    if (!legacyDir.empty() && !m_analysis->docks().empty()) {
        m_analysis->docks().front()->show();
        m_analysis->docks().front()->raise();
    }
    showTraceStatus(m_statusLabel, *m_trace);
    updateTitle();
    m_compare->onTraceShown();
    emit traceShown(displayName);
}

void MainWindow::compareWith(const QString &path)
{
    m_compare->compareWith(path);
}

void MainWindow::compareFileDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Compare With Profile"),
                                                      QString(), tr(kOpenFilter));
    if (!path.isEmpty())
        compareWith(path);
}

void MainWindow::openCaptureDialog()
{
    auto *dialog = new views::CaptureDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Used until the user picks a logdir (the dialog remembers the last one).
    dialog->setDefaultLogdir(QDir::home().filePath(QStringLiteral("profiles")));
    connect(dialog, &views::CaptureDialog::captureSaved, this, [this](const QString &runDir) {
        // Never replace what this window shows: a capture opens here only when it is empty.
        if (m_trace || m_loads->isLoading())
            openInNewWindow(runDir);
        else
            openPath(runDir);
    });
    dialog->open();
}

QString MainWindow::statusText() const
{
    const QVariant plain = m_statusLabel->property(kPlainStatus);
    return plain.isValid() ? plain.toString() : m_statusLabel->text();
}

void MainWindow::updateTitle()
{
    setWindowTitle(m_displayName.isEmpty() ? tr("TraceDesk")
                                           : tr("TraceDesk — %1").arg(m_displayName));
}

void MainWindow::openFileDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Profile"), QString(), tr(kOpenFilter));
    openPath(path);
}

void MainWindow::openFolderDialog()
{
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open Run Folder or Logdir"));
    openPath(path);
}

void MainWindow::cancelLoad()
{
    m_loads->cancel();
}

QStringList MainWindow::recentFiles() const
{
    return RecentFiles::list();
}

void MainWindow::addRecentFile(const QString &path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    RecentFiles::set(files);
    rebuildRecentMenu();
}

void MainWindow::clearRecentFiles()
{
    RecentFiles::set({});
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString &path : files) {
        QAction *action = m_recentMenu->addAction(QDir::toNativeSeparators(path));
        connect(action, &QAction::triggered, this, [this, path] { openPath(path); });
    }
    if (!files.isEmpty())
        m_recentMenu->addSeparator();
    QAction *clear = m_recentMenu->addAction(tr("&Clear List"), this,
                                             &MainWindow::clearRecentFiles);
    clear->setEnabled(!files.isEmpty());
}

void MainWindow::onLoadStarted(const QString &path)
{
    closeProgress();
    m_activeAtLoadStart = isActiveWindow();
    statusBar()->showMessage(tr("Loading %1…").arg(QDir::toNativeSeparators(path)));
    m_progress = new QProgressDialog(tr("Loading %1…").arg(QFileInfo(path).fileName()),
                                     tr("Cancel"), 0, kProgressSteps, this);
    m_progress->setObjectName(QStringLiteral("LoadProgress"));
    m_progress->setWindowTitle(tr("Opening Profile"));
    m_progress->setWindowModality(Qt::WindowModal);
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    // Small files finish before the dialog would appear, so it never flashes.
    m_progress->setMinimumDuration(kProgressDelayMs);
    m_progress->setValue(0);
    connect(m_progress, &QProgressDialog::canceled, this, &MainWindow::cancelLoad);
}

void MainWindow::onProgress(double fraction, quint64, quint64 total)
{
    if (!m_progress)
        return;
    if (total == 0) {
        m_progress->setRange(0, 0);   // busy indicator until the size is known
        return;
    }
    // A window-modal dialog's setValue() processes events, and the load may finish inside it
    // (closing the dialog): everything else is set first, setValue() is the last touch.
    m_progress->setLabelText(loadProgressText(m_loads->currentPath(), fraction));
    m_progress->setRange(0, kProgressSteps);
    m_progress->setValue(int(fraction * kProgressSteps));
}

void MainWindow::closeProgress()
{
    if (!m_progress)
        return;
    m_progress->disconnect(this);
    // Without a window manager nothing hands the focus back when the dialog goes, and the
    // timeline would ignore the keyboard until the user clicked it. Read before cancel(),
    // which already hides the dialog: the dialog had the focus, or the window had it when the
    // load began and no window of the application has it now.
    const bool takeFocus =
        m_progress->isVisible()
        && (m_progress->isActiveWindow()
            || (m_activeAtLoadStart && (!QApplication::activeWindow()
                                        || QApplication::activeWindow() == m_progress)));
    // cancel() stops the timer that would show the dialog after its delay: a load that failed
    // sooner must not have the dialog pop up later over the error box.
    m_progress->cancel();
    m_progress->hide();
    if (takeFocus)
        activateWindow();
    m_progress->deleteLater();
    m_progress = nullptr;
}

void MainWindow::onLoaded(core::TracePtr trace, const QString &displayName, const QString &path)
{
    closeProgress();
    statusBar()->clearMessage();
    // Several dropped files load as one run, their paths joined by newlines.
    m_analysis->setRunSource(path.split(QLatin1Char('\n'), Qt::SkipEmptyParts),
                             m_loads->options());
    showTrace(std::move(trace), displayName);
    m_openedPath = path;
    showRankNote();
    if (!path.contains(QLatin1Char('\n')))   // several dropped files are no one recent entry
        addRecentFile(path);
    if (!m_screenshotPath.isEmpty())
        QTimer::singleShot(0, this, &MainWindow::takeScreenshot);
}

void MainWindow::reopenAlignedAt(const QString &step)
{
    if (m_openedPath.isEmpty() || step.isEmpty())
        return;
    core::LoadOptions options = m_loads->options();
    options.alignStep = step.toStdString();
    m_loads->setOptions(options);
    // Several dropped files load as one run, their paths joined by newlines.
    m_loads->start(m_openedPath);
}

void MainWindow::onLoadFailed(const QString &message, const QString &)
{
    closeProgress();
    statusBar()->clearMessage();
    if (!m_screenshotPath.isEmpty()) {
        std::fprintf(stderr, "tracedesk: %s\n", qPrintable(message));
        const QString path = m_screenshotPath;
        m_screenshotPath.clear();
        m_lastError = message;
        emit screenshotFinished(false, path);
        return;
    }
    showError(message);
}

void MainWindow::onLoadCancelled(const QString &)
{
    closeProgress();
    statusBar()->showMessage(tr("Loading cancelled"), 5000);
    emit loadCancelled();
}

void MainWindow::showError(const QString &message)
{
    m_lastError = message;
    emit errorShown(message);
    if (m_interactiveErrors)
        QMessageBox::critical(this, tr("Cannot Open Profile"), message);
}

void MainWindow::takeScreenshot()
{
    const QString path = m_screenshotPath;
    if (path.isEmpty())
        return;
    // The grab needs a laid-out, shown window whose visible panels have their results; try
    // again until then, but never wait forever on a panel (30 s).
    if (!m_screenshotWait.isValid())
        m_screenshotWait.start();
    if (!isVisible() || (m_analysis->visiblePanelComputing() && m_screenshotWait.elapsed() < 30000)) {
        QTimer::singleShot(50, this, &MainWindow::takeScreenshot);
        return;
    }
    m_screenshotWait.invalidate();
    // Results just shown have grown their labels: settle the layouts the grab would miss.
    for (int pass = 0; pass < 3; ++pass)
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    m_screenshotPath.clear();
    const bool ok = grab().save(path, "PNG");
    if (!ok)
        std::fprintf(stderr, "tracedesk: cannot write the screenshot %s\n", qPrintable(path));
    emit screenshotFinished(ok, path);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // The saved layout is the restored one, never the maximised panel.
    setPanelMaximised(false);
    saveWindowState();
    m_loads->cancel();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (firstLocalPath(event->mimeData()).isEmpty()) {
        event->ignore();
        return;
    }
    event->acceptProposedAction();
    // With a profile on show, the drop position chooses: open instead, or compare with it.
    if (m_trace) {
        m_dropOverlay->setCurrentName(m_displayName);
        m_dropOverlay->showFor(event->position().toPoint());
    }
}

void MainWindow::dragMoveEvent(QDragMoveEvent *event)
{
    if (m_dropOverlay->isVisible())
        m_dropOverlay->updateHover(event->position().toPoint());
    event->acceptProposedAction();
}

void MainWindow::dragLeaveEvent(QDragLeaveEvent *event)
{
    m_dropOverlay->hide();
    QMainWindow::dragLeaveEvent(event);
}

// Two PyTorch traces dropped together are compared (A the first) unless they are two ranks of
// one run (each names its own rank in distributedInfo; a file name's digits are no proof) or a
// graph capture with its replay; the files' heads say which.
void MainWindow::openSeveral(const QStringList &files)
{
    auto openAsRun = [this, files] {
        setRankChoice({});
        m_loads->startFiles(files);
    };
    auto isJson = [](const QString &f) {
        return f.endsWith(".json") || f.endsWith(".json.gz") || f.endsWith(".json.zst");
    };
    if (files.size() != 2 || !isJson(files[0]) || !isJson(files[1])) {
        openAsRun();
        return;
    }
    // The files' heads are read on a worker: a graph capture pair is found by decompressing up
    // to a bound, which the GUI thread must not wait for.
    const std::vector<std::string> paths = {files[0].toStdString(), files[1].toStdString()};
    m_dropJob.run<bool>(
        this,
        [paths] {
            if (core::findGraphCapturePair(paths))
                return false;
            const std::vector<core::RunFile> run = core::runFiles(paths);
            bool ownRanks = true;
            for (const core::RunFile &f : run)
                ownRanks &= f.rankSource == "distributedInfo";
            return !(ownRanks && core::rankNumbers(run).size() == 2);
        },
        [this, files, openAsRun](bool compare) {
            if (!compare) {
                openAsRun();
                return;
            }
            openPath(files[0]);
            compareWith(files[1]);
        });
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString path = firstLocalPath(event->mimeData());
    if (path.isEmpty()) {
        event->ignore();
        return;
    }
    event->acceptProposedAction();
    const bool choosing = m_dropOverlay->isVisible();
    const auto choice = choosing ? m_dropOverlay->choiceAt(event->position().toPoint())
                                 : views::DropChoiceOverlay::Choice::Open;
    m_dropOverlay->hide();
    if (choice == views::DropChoiceOverlay::Choice::Compare)
        compareWith(path);
    else if (choice == views::DropChoiceOverlay::Choice::Open) {
        if (const QStringList files = severalLocalFiles(event->mimeData()); !files.isEmpty())
            openSeveral(files);
        else
            openPath(path);
    }
}

} // namespace tracedesk::app
