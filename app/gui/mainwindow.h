#pragma once

// MainWindow: menus, the Tracks dock, the central area, load progress and errors, drops, recent
// files and window state. It wires a LoadController to the views; it never parses or computes.
// A failed or cancelled load leaves the trace that was shown before untouched.

#include "app/gui/loadcontroller.h"

#include "core/model/trace.h"
#include "views/timeline/backgroundjob.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <QProgressDialog>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QStackedWidget;
class QTreeView;

namespace tracedesk::views {
class DetailsPane;
class DropChoiceOverlay;
class PlaceholderPanel;
class TimelineWidget;
class TrackTreeModel;
} // namespace tracedesk::views

namespace tracedesk::app {

class AnalysisDocks;
class CompareController;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    static constexpr int kMaxRecentFiles = 10;
    static constexpr int kProgressDelayMs = 300;

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Starts loading a file or folder in the background.
    void openPath(const QString &path);
    // Reopens the shown rank run with each rank's ProfilerStep#<step> at one time.
    void reopenAlignedAt(const QString &step);
    // Opens a run with only these ranks on the timeline (empty: every rank, or the first ranks
    // that fit the memory budget); the Distributed panel still summarises every rank.
    // Opens `path`, a replay of CUDA / HIP graphs, with the trace of their capture.
    void openWithGraphCapture(const QString &path, const QString &capture);
    void openRunRanks(const QString &path, const QList<qint64> &ranks);
    // Reopens the shown run with these ranks (keeping its step alignment).
    void reopenWithRanks(const QList<qint64> &ranks);
    // A new window (deleted when closed) that loads `path` when it is not empty. Opening a
    // second profile this way never replaces what another window shows.
    static MainWindow *openInNewWindow(const QString &path);
    // Loads `path` as the second profile and shows both side by side (see CompareController).
    void compareWith(const QString &path);
    // Shows an already built trace (also what a finished load ends in).
    void showTrace(core::TracePtr trace, const QString &displayName);
    // Replaces the central widget (by default a stack of the placeholder and the timeline,
    // which shows the timeline once a trace is shown).
    void setCentralContent(QWidget *widget);

    // When set, errors are reported through lastError()/errorShown() only (no modal box).
    void setInteractiveErrors(bool interactive) { m_interactiveErrors = interactive; }
    // After the next successful load (with the window shown) grab the window into `path`,
    // then emit screenshotFinished(). A failed load also finishes it, unsuccessfully.
    void setScreenshotOnLoad(const QString &path) { m_screenshotPath = path; }

    const core::TracePtr &trace() const { return m_trace; }
    QString displayName() const { return m_displayName; }
    QString lastError() const { return m_lastError; }
    QString statusText() const;
    QStringList recentFiles() const;
    LoadController *loadController() const { return m_loads; }
    views::TrackTreeModel *trackModel() const { return m_trackModel; }
    QTreeView *trackView() const { return m_trackView; }
    QDockWidget *tracksDock() const { return m_tracksDock; }
    views::PlaceholderPanel *placeholder() const { return m_placeholder; }
    views::TimelineWidget *timeline() const { return m_timeline; }
    views::DetailsPane *detailsPane() const { return m_details; }
    QDockWidget *detailsDock() const { return m_detailsDock; }
    AnalysisDocks *analysisDocks() const { return m_analysis; }
    CompareController *compareController() const { return m_compare; }
    views::DropChoiceOverlay *dropOverlay() const { return m_dropOverlay; }
    QProgressDialog *progressDialog() const { return m_progress; }
    // The analysis panels fill the window (the timeline, Tracks and Details hidden) until
    // restored; View > Maximise Panel (Ctrl+Shift+M) toggles it.
    bool panelMaximised() const { return m_panelMaximised; }
    QAction *maximisePanelAction() const { return m_maximisePanel; }
    // The right-click menu of dock title bars: the dock toggles plus Maximise Panel.
    QMenu *createPopupMenu() override;

signals:
    void traceShown(const QString &displayName);
    void errorShown(const QString &message);
    void loadCancelled();
    void screenshotFinished(bool ok, const QString &path);

public slots:
    void openFileDialog();
    void openFolderDialog();
    void compareFileDialog();
    void openCaptureDialog();
    void cancelLoad();
    void clearRecentFiles();
    // Grabs the window into the armed screenshot path now (see setScreenshotOnLoad()).
    void takeScreenshot();
    void setPanelMaximised(bool maximised);

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void openSeveral(const QStringList &files);

private:
    // A folder of rank summary files (distributed --map): the Distributed panel shows the run
    // from them at once; its rank picker loads the chosen ranks' traces, as the summaries name
    // them. `ranks` given: those ranks' traces are loaded right away.
    void openSummaryFolder(const QString &dir, const QList<qint64> &ranks);
    void createMenus();
    void createDocks();
    void restoreWindowState();
    void saveWindowState();
    void rebuildRecentMenu();
    void addRecentFile(const QString &path);
    void updateTitle();

    void onLoadStarted(const QString &path);
    void onLoaded(core::TracePtr trace, const QString &displayName, const QString &path);
    void onLoadFailed(const QString &message, const QString &path);
    void onLoadCancelled(const QString &path);
    void onProgress(double fraction, quint64 done, quint64 total);
    void closeProgress();
    void showError(const QString &message);
    void setRankChoice(const QList<qint64> &ranks);
    // The status bar says which ranks of the run the timeline shows, when not all.
    void showRankNote();

    LoadController *m_loads = nullptr;
    AnalysisDocks *m_analysis = nullptr;
    CompareController *m_compare = nullptr;
    views::DropChoiceOverlay *m_dropOverlay = nullptr;
    views::TrackTreeModel *m_trackModel = nullptr;
    QTreeView *m_trackView = nullptr;
    QDockWidget *m_tracksDock = nullptr;
    views::PlaceholderPanel *m_placeholder = nullptr;
    views::TimelineWidget *m_timeline = nullptr;
    views::DetailsPane *m_details = nullptr;
    QDockWidget *m_detailsDock = nullptr;
    QStackedWidget *m_central = nullptr;
    QLabel *m_statusLabel = nullptr;
    QMenu *m_recentMenu = nullptr;
    QPointer<QProgressDialog> m_progress;
    bool m_activeAtLoadStart = false;   // whether the window had the focus when a load began
    QAction *m_maximisePanel = nullptr;
    bool m_panelMaximised = false;
    QPointer<QWidget> m_hiddenCentral;            // the central widget maximising hid
    QByteArray m_stateBeforeMaximise;             // the dock layout restored afterwards
    bool m_firstStart = false;                    // no saved layout: apply the default split

    core::TracePtr m_trace;
    QString m_displayName;
    QString m_openedPath;   // what the shown trace was loaded from
    QString m_lastError;
    QString m_screenshotPath;
    QElapsedTimer m_screenshotWait;
    bool m_interactiveErrors = true;
    views::BackgroundJob m_dropJob; // decides what two dropped traces are
    views::BackgroundJob m_summaryJob; // reduces a folder of rank summaries
};

} // namespace tracedesk::app
