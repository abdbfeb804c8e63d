#include "app/gui/aboutbox.h"
#include "app/gui/mainwindow.h"
#include "app/gui/recentfiles.h"
#include "app/gui/startup.h"
#include "core/base/version.h"

#include "core/model/tracebuilder.h"
#include "views/common/placeholderpanel.h"
#include "views/common/qtconvert.h"
#include "views/common/tracesummary.h"
#include "views/timeline/detailspane.h"
#include "views/timeline/timelinewidget.h"
#include "views/tracktree/tracktreemodel.h"

#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSettings>
#include <QLabel>
#include <QMenuBar>
#include <QStackedWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace tracedesk;
using app::LoadController;
using app::LoadedTrace;
using app::MainWindow;

namespace {

const char kUnavailable[] = "not available in this build";

// One host with a device plane (2 tracks) and a host plane (1 track): 6 slices, span 0..4 us.
core::TracePtr buildTrace(int extraSlices = 0)
{
    core::TraceBuilder b;
    core::EventKind kind;
    kind.name = b.intern("op");
    const uint32_t op = b.addKind(kind);
    const uint32_t cpu = b.addPlane("/host:CPU", "node1", 1, core::PlaneKind::Host);
    const uint32_t gpu = b.addPlane("/device:GPU:0", "node1", 2, core::PlaneKind::Device);
    const uint32_t main = b.addTrack(cpu, "main", 1);
    b.trackBuilder(main).addSlice(0, 4'000'000, op);
    b.trackBuilder(main).addSlice(1'000'000, 1'000'000, op);
    const uint32_t compute = b.addTrack(gpu, "Compute", 1);
    b.trackBuilder(compute).addSlice(500'000, 100'000, op);
    b.trackBuilder(compute).addSlice(700'000, 100'000, op);
    const uint32_t copy = b.addTrack(gpu, "Copy", 2);
    b.trackBuilder(copy).addSlice(100'000, 50'000, op);
    b.trackBuilder(copy).addSlice(3'000'000, 50'000, op);
    for (int i = 0; i < extraSlices; ++i)
        b.trackBuilder(copy).addSlice(3'100'000 + i * 10, 5, op);
    return b.build();
}

QStringList childNames(const QAbstractItemModel &m, const QModelIndex &parent)
{
    QStringList names;
    for (int r = 0; r < m.rowCount(parent); ++r)
        names << m.index(r, 0, parent).data().toString();
    return names;
}

// Builds a trace on the worker, named after the file it was asked for.
LoadController::Loader fakeLoader()
{
    return [](const std::string &path, core::LoadControl *, const core::LoadOptions &)
               -> core::Result<LoadedTrace> {
        return LoadedTrace{buildTrace(), QFileInfo(QString::fromStdString(path)).fileName()};
    };
}

} // namespace

class TstMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();

    void showTraceFillsTreeAndStatus();
    void commandLineParsing();
    void commandLineOpensPath();
    void commandLineOpensRealProfile();
    void secondPathOpensSecondWindow();
    void executablesPrintHelpAndVersion();
    void helpMenuAndAbout();
    void dropOpensFirstLocalFile();
    void errorsKeepPreviousTrace();
    void errorShowsMessageBox();
    void errorBoxIsNotCoveredByProgress();
    void cancelFromProgressDialog();
    void cancelLargeGeneratedFile();
    void supersededLoadIsDropped();
    void recentFiles();
    void windowStateIsRestored();
    void screenshotAfterLoad();
    void timelineAndDetailsWired();
    void warningsOpenFromStatusBar();

private:
    void configure(MainWindow &window);
    // Waits for the current load to end; returns the error, empty when a trace was shown.
    QString waitForLoad(MainWindow &window);
    QString fixture(const QString &relative) const;

    QTemporaryDir m_temp;
};

void TstMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
    QVERIFY(m_temp.isValid());
}

void TstMainWindow::init()
{
    app::RecentFiles::flush();   // a list still being written would land after the clear
    QSettings().clear();
}

void TstMainWindow::configure(MainWindow &window)
{
    window.setInteractiveErrors(false);
    core::LoadOptions options;
    options.cacheDir = m_temp.filePath(QStringLiteral("cache")).toStdString();
    window.loadController()->setOptions(options);
}

QString TstMainWindow::waitForLoad(MainWindow &window)
{
    QSignalSpy shown(&window, &MainWindow::traceShown);
    QSignalSpy error(&window, &MainWindow::errorShown);
    if (window.loadController()->isLoading())
        [&] { QTRY_VERIFY_WITH_TIMEOUT(shown.count() + error.count() > 0, 120000); }();
    return error.isEmpty() ? QString() : error.front().front().toString();
}

QString TstMainWindow::fixture(const QString &relative) const
{
    return QStringLiteral(TRACEDESK_SHARED_FIXTURES "/") + relative;
}

void TstMainWindow::showTraceFillsTreeAndStatus()
{
    MainWindow window;
    configure(window);
    QCOMPARE(window.windowTitle(), QStringLiteral("TraceDesk"));
    QCOMPARE(window.tracksDock()->objectName(), QStringLiteral("TracksDock"));
    window.showTrace(buildTrace(), QStringLiteral("built.xplane.pb"));

    QCOMPARE(window.windowTitle(), QStringLiteral("TraceDesk — built.xplane.pb"));
    // Hand-computed: 6 slices on 3 tracks spanning 0..4 us; built traces take no load time.
    QCOMPARE(window.statusText(),
             QStringLiteral("6 events · 3 tracks · span 4.00 us · loaded in 0.00 s"));
    const QAbstractItemModel &m = *window.trackView()->model();
    QCOMPARE(childNames(m, {}), QStringList{"node1"});
    QCOMPARE(childNames(m, m.index(0, 0)), (QStringList{"/device:GPU:0", "/host:CPU"}));
    QCOMPARE(childNames(m, m.index(0, 0, m.index(0, 0))), (QStringList{"Compute", "Copy"}));
    QCOMPARE(window.placeholder()->titleText(), QStringLiteral("built.xplane.pb"));
    QCOMPARE(window.placeholder()->detailText(), QStringLiteral("span 4.00 us · 6 events"));
    QVERIFY(window.trackView()->isExpanded(m.index(0, 0)));
}

void TstMainWindow::commandLineParsing()
{
    auto o = app::parseCommandLine({"tracedesk", "--screenshot", "out.png", "run.json"});
    QVERIFY(!o.exitNow);
    QCOMPARE(o.paths, QStringList{QStringLiteral("run.json")});
    QCOMPARE(o.screenshotPath, QStringLiteral("out.png"));

    o = app::parseCommandLine({"tracedesk"});
    QVERIFY(!o.exitNow);
    QVERIFY(o.paths.isEmpty());

    // A desktop passes every selected file (Exec=tracedesk %F).
    o = app::parseCommandLine({"tracedesk", "a.json", "b.json"});
    QVERIFY(!o.exitNow);
    QCOMPARE(o.paths, (QStringList{"a.json", "b.json"}));

    o = app::parseCommandLine({"tracedesk", "--screenshot", "x.png", "a.json", "b.json"});
    QVERIFY(o.exitNow);
    QCOMPARE(o.exitCode, 2);

    o = app::parseCommandLine({"tracedesk", "--version"});
    QVERIFY(o.exitNow);
    QCOMPARE(o.exitCode, 0);
    QCOMPARE(o.message, QStringLiteral("TraceDesk %1\n").arg(core::kVersion));

    o = app::parseCommandLine({"tracedesk", "--no-such-option"});
    QVERIFY(o.exitNow);
    QCOMPARE(o.exitCode, 2);
    QVERIFY(o.message.contains(QStringLiteral("no-such-option")));

    o = app::parseCommandLine({"tracedesk", "--help"});
    QVERIFY(o.exitNow);
    QCOMPARE(o.exitCode, 0);
    QVERIFY(o.message.contains(QStringLiteral("--screenshot")));
}

void TstMainWindow::commandLineOpensPath()
{
    MainWindow window;
    configure(window);
    window.loadController()->setLoader(fakeLoader());
    const QString path = m_temp.filePath(QStringLiteral("fake.json"));
    app::applyStartupOptions(window, app::parseCommandLine({"tracedesk", path}));
    QVERIFY(window.loadController()->isLoading());
    QCOMPARE(waitForLoad(window), QString());

    QCOMPARE(window.windowTitle(), QStringLiteral("TraceDesk — fake.json"));
    QCOMPARE(window.trackModel()->rowCount(), 1);
    QVERIFY(window.statusText().startsWith(QStringLiteral("6 events · 3 tracks")));
    QCOMPARE(window.recentFiles(), QStringList{path});
}

void TstMainWindow::secondPathOpensSecondWindow()
{
    const QString sample = QStringLiteral(TRACEDESK_TEST_DATA "/../../resources/sample/plugins/"
                                          "profile/2024_01_01_00_00_00/sample-host.xplane.pb");
    QVERIFY(QFileInfo::exists(sample));
    MainWindow window;
    configure(window);
    window.loadController()->setLoader(fakeLoader());
    const QString first = m_temp.filePath(QStringLiteral("first.json"));
    app::applyStartupOptions(window, app::parseCommandLine({"tracedesk", first, sample}));
    QCOMPARE(waitForLoad(window), QString());
    QCOMPARE(window.displayName(), QStringLiteral("first.json"));

    MainWindow *second = nullptr;
    for (QWidget *w : QApplication::topLevelWidgets()) {
        if (auto *m = qobject_cast<MainWindow *>(w); m && m != &window)
            second = m;
    }
    QVERIFY(second);
    QVERIFY(second->isVisible());
    QVERIFY(second->testAttribute(Qt::WA_DeleteOnClose));
    second->setInteractiveErrors(false);
    QTRY_VERIFY_WITH_TIMEOUT(second->trace() != nullptr, 30000);
    QVERIFY(second->windowTitle().contains(QStringLiteral("sample-host")));
    // The first window still shows its own trace.
    QCOMPARE(window.displayName(), QStringLiteral("first.json"));
    QPointer<MainWindow> guard(second);
    second->close();
    QTRY_VERIFY(guard.isNull());
}

void TstMainWindow::executablesPrintHelpAndVersion()
{
    for (const QString &program : {QStringLiteral(TRACEDESK_APP), QStringLiteral(TRACEDESK_CLI)}) {
        QProcess version;
        version.start(program, {QStringLiteral("--version")});
        QVERIFY(version.waitForFinished(30000));
        QCOMPARE(version.exitCode(), 0);
        const QString out = QString::fromUtf8(version.readAllStandardOutput());
        QVERIFY2(out.trimmed().endsWith(QLatin1String(core::kVersion)), qPrintable(out));

        QProcess help;
        help.start(program, {QStringLiteral("--help")});
        QVERIFY(help.waitForFinished(30000));
        QCOMPARE(help.exitCode(), 0);
        const QString text = QString::fromUtf8(help.readAllStandardOutput());
        QVERIFY2(text.contains(QStringLiteral("Usage:")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("--version")), qPrintable(text));
    }
}

void TstMainWindow::helpMenuAndAbout()
{
    MainWindow window;
    configure(window);
    QStringList titles;
    QMenu *help = nullptr;
    for (QAction *a : window.menuBar()->actions()) {
        titles << a->text();
        if (a->text() == QStringLiteral("&Help"))
            help = a->menu();
    }
    QVERIFY2(help, qPrintable(titles.join(", ")));
    QStringList items;
    for (QAction *a : help->actions())
        items << a->text();
    QVERIFY(items.contains(QStringLiteral("&Keyboard Shortcuts")));
    QVERIFY(items.contains(QStringLiteral("&About TraceDesk")));

    const QString versions = app::libraryVersions();
    QVERIFY2(versions.contains(QStringLiteral("Qt ") + QString::fromLatin1(qVersion())),
             qPrintable(versions));
    for (const char *lib : {"protobuf 3.", "gRPC 1.", "zstd 1."})
        QVERIFY2(versions.contains(QLatin1String(lib)), qPrintable(versions));
    QVERIFY(app::aboutText().contains(QLatin1String(core::kVersion)));

    // The shortcuts list opens from the menu, non-modal.
    for (QAction *a : help->actions()) {
        if (a->text() == QStringLiteral("&Keyboard Shortcuts"))
            a->trigger();
    }
    QWidget *box = window.findChild<QWidget *>(QStringLiteral("TimelineShortcuts"));
    QVERIFY(box);
    QTRY_VERIFY(box->isVisible());
    box->close();
}

void TstMainWindow::commandLineOpensRealProfile()
{
    const QString path = fixture("xspace/xprof_tpu_inference_2/tpu_inference_2.xplane.pb");
    if (!QFileInfo::exists(path))
        QSKIP("real fixtures not found (TRACEDESK_SHARED_FIXTURES)");
    MainWindow window;
    configure(window);
    app::applyStartupOptions(window, app::parseCommandLine({"tracedesk", path}));
    const QString error = waitForLoad(window);
    if (error.contains(kUnavailable))
        QSKIP("the XSpace reader is not in this build yet");
    QCOMPARE(error, QString());

    QCOMPARE(window.windowTitle(), QStringLiteral("TraceDesk — tpu_inference_2.xplane.pb"));
    const QAbstractItemModel &m = *window.trackModel();
    QCOMPARE(m.rowCount(), 1);   // one host
    const QStringList planes = childNames(m, m.index(0, 0));
    // PROVENANCE.md: /device:TPU:0..3, /host:metadata, /host:CPU, Task Environment; devices first.
    QVERIFY2(planes.size() >= 5, qPrintable(planes.join(", ")));
    QCOMPARE(planes.mid(0, 4), (QStringList{"/device:TPU:0", "/device:TPU:1", "/device:TPU:2",
                                            "/device:TPU:3"}));
    QCOMPARE(planes.at(4), QStringLiteral("/host:CPU"));
    // TPU:0 holds 2,317 events (PROVENANCE.md).
    QCOMPARE(m.index(0, views::TrackTreeModel::EventsColumn, m.index(0, 0)).data().toString(),
             QStringLiteral("2,317"));
    const core::TracePtr trace = window.trace();
    QVERIFY(window.statusText().startsWith(views::countText(trace->eventCount()) + " events · "
                                           + views::countText(trace->tracks.size()) + " tracks"));
    QCOMPARE(window.statusText(), views::traceStatusText(*trace));
}

void TstMainWindow::dropOpensFirstLocalFile()
{
    MainWindow window;
    configure(window);
    window.loadController()->setLoader(fakeLoader());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    const QString path = m_temp.filePath(QStringLiteral("dropped.json.gz"));
    QMimeData remote;
    remote.setUrls({QUrl(QStringLiteral("https://example.invalid/trace.json"))});
    QDragEnterEvent rejected(QPoint(50, 50), Qt::CopyAction, &remote, Qt::LeftButton,
                             Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &rejected);
    QVERIFY(!rejected.isAccepted());

    QMimeData mime;
    mime.setUrls({QUrl(QStringLiteral("https://example.invalid/x.json")),
                  QUrl::fromLocalFile(path),
                  QUrl::fromLocalFile(m_temp.filePath(QStringLiteral("second.json")))});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy started(window.loadController(), &LoadController::started);
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
    QVERIFY(drop.isAccepted());
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.front().front().toString(), path);
    QCOMPARE(waitForLoad(window), QString());
    QCOMPARE(window.displayName(), QStringLiteral("dropped.json.gz"));
    QCOMPARE(window.trackModel()->rowCount(), 1);
}

void TstMainWindow::errorsKeepPreviousTrace()
{
    MainWindow window;
    configure(window);
    const core::TracePtr shown = buildTrace();
    window.showTrace(shown, QStringLiteral("kept"));
    const QString status = window.statusText();

    const QString missing = m_temp.filePath(QStringLiteral("does-not-exist.xplane.pb"));
    window.openPath(missing);
    QString error = waitForLoad(window);
    QVERIFY2(error.contains(missing) && error.contains(QStringLiteral("no such file")),
             qPrintable(error));

    // Random bytes, once with an unknown first byte and once under an XSpace name.
    QRandomGenerator random(7);
    QByteArray bytes(64 * 1024, '\0');
    for (char &c : bytes)
        c = char(random.bounded(256));
    bytes[0] = char(0xff);
    for (const QString &name : {QStringLiteral("random.bin"), QStringLiteral("random.xplane.pb")}) {
        const QString path = m_temp.filePath(name);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        file.close();
        window.openPath(path);
        error = waitForLoad(window);
        QVERIFY2(error.contains(path), qPrintable(error));
    }
    QCOMPARE(window.lastError(), error);
    QCOMPARE(window.trace(), shown);
    QCOMPARE(window.displayName(), QStringLiteral("kept"));
    QCOMPARE(window.statusText(), status);
    QCOMPARE(window.trackModel()->trace(), shown);
    QCOMPARE(window.trackModel()->rowCount(), 1);
    QCOMPARE(window.windowTitle(), QStringLiteral("TraceDesk — kept"));
    QVERIFY(window.recentFiles().isEmpty());
}

void TstMainWindow::errorShowsMessageBox()
{
    MainWindow window;
    configure(window);
    window.setInteractiveErrors(true);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QString boxText;
    QTimer closer;
    closer.setInterval(20);
    connect(&closer, &QTimer::timeout, this, [&] {
        for (QWidget *w : QApplication::topLevelWidgets()) {
            auto *box = qobject_cast<QMessageBox *>(w);
            if (box && box->isVisible()) {
                boxText = box->text();
                box->accept();
            }
        }
    });
    closer.start();
    const QString missing = m_temp.filePath(QStringLiteral("missing.json"));
    window.openPath(missing);
    QTRY_VERIFY_WITH_TIMEOUT(!boxText.isEmpty(), 20000);
    closer.stop();
    QVERIFY2(boxText.contains(missing), qPrintable(boxText));
    QCOMPARE(window.lastError(), boxText);
}

// A file that is no profile fails at once; the error box stays open while the user reads it, and
// the load's progress dialog must not appear over it later (it was window-modal: OK did nothing).
void TstMainWindow::errorBoxIsNotCoveredByProgress()
{
    MainWindow window;
    configure(window);
    window.setInteractiveErrors(true);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    const QString notATrace = m_temp.filePath(QStringLiteral("hostname"));
    {
        QFile f(notATrace);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("build-machine\n");
    }
    QElapsedTimer boxOpen;
    bool progressOverBox = false;
    bool closed = false;
    QTimer watcher;
    watcher.setInterval(20);
    connect(&watcher, &QTimer::timeout, this, [&] {
        QMessageBox *box = nullptr;
        for (QWidget *w : QApplication::topLevelWidgets()) {
            if (auto *b = qobject_cast<QMessageBox *>(w); b && b->isVisible())
                box = b;
        }
        if (!box)
            return;
        if (!boxOpen.isValid())
            boxOpen.start();
        for (QWidget *w : QApplication::topLevelWidgets()) {
            if (qobject_cast<QProgressDialog *>(w) && w->isVisible())
                progressOverBox = true;
        }
        // Longer than the dialog's delay before it shows itself.
        if (boxOpen.elapsed() > 3 * MainWindow::kProgressDelayMs) {
            box->accept();
            closed = true;
        }
    });
    watcher.start();
    window.openPath(notATrace);
    QTRY_VERIFY_WITH_TIMEOUT(closed, 20000);
    watcher.stop();
    QVERIFY(!progressOverBox);
    QVERIFY(window.lastError().contains(notATrace));
    for (QWidget *w : QApplication::topLevelWidgets())
        QVERIFY(!(qobject_cast<QProgressDialog *>(w) && w->isVisible()));
}

void TstMainWindow::cancelFromProgressDialog()
{
    MainWindow window;
    configure(window);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const core::TracePtr shown = buildTrace();
    window.showTrace(shown, QStringLiteral("kept"));

    // Reports half the bytes, then runs until cancelled.
    std::atomic<bool> sawCancel{false};
    window.loadController()->setLoader(
        [&](const std::string &, core::LoadControl *control, const core::LoadOptions &)
            -> core::Result<LoadedTrace> {
            control->addTotal(1000);
            control->addDone(500);
            while (!control->cancelRequested())
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            sawCancel = true;
            return core::Result<LoadedTrace>::cancelled();
        });
    QSignalSpy cancelled(&window, &MainWindow::loadCancelled);
    QSignalSpy errors(&window, &MainWindow::errorShown);
    window.openPath(m_temp.filePath(QStringLiteral("slow.json")));
    QTRY_VERIFY(window.progressDialog() && window.progressDialog()->isVisible());
    QTRY_COMPARE(window.progressDialog()->value(), 500);
    auto *cancel = window.progressDialog()->findChild<QPushButton *>();
    QVERIFY(cancel);
    QTest::mouseClick(cancel, Qt::LeftButton);

    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!window.loadController()->isLoading());
    QTRY_VERIFY(sawCancel.load());
    QTRY_COMPARE(window.loadController()->runningWorkers(), 0);
    QTRY_VERIFY(!window.progressDialog());
    QCOMPARE(errors.count(), 0);
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(window.trace(), shown);
    QCOMPARE(window.displayName(), QStringLiteral("kept"));
}

void TstMainWindow::cancelLargeGeneratedFile()
{
    // A folder of this run's own: a fixed name in the shared temp folder could be half written
    // by a concurrent run.
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("generated-2000000-seed1.json"));
    {
        QProcess cli;
        cli.start(QStringLiteral(TRACEDESK_CLI),
                  {"generate", "--events", "2000000", "--format", "json", "--seed", "1", out});
        if (!cli.waitForFinished(300000) || cli.exitCode() != 0 || !QFileInfo::exists(out)) {
            QFile::remove(out);
            QSKIP("tracedesk-cli cannot generate a large trace yet (generate --events 2000000 "
                  "--format json)");
        }
    }
    MainWindow window;
    configure(window);
    core::LoadOptions options = window.loadController()->options();
    options.useCache = false;   // a cached store would load before it could be cancelled
    window.loadController()->setOptions(options);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const core::TracePtr shown = buildTrace();
    window.showTrace(shown, QStringLiteral("kept"));

    QSignalSpy cancelled(&window, &MainWindow::loadCancelled);
    QSignalSpy shownSpy(&window, &MainWindow::traceShown);
    QSignalSpy errors(&window, &MainWindow::errorShown);
    window.openPath(out);
    QTRY_VERIFY_WITH_TIMEOUT((window.progressDialog() && window.progressDialog()->isVisible())
                                 || !window.loadController()->isLoading(),
                             60000);
    if (!errors.isEmpty() && errors.front().front().toString().contains(kUnavailable))
        QSKIP("the Chrome JSON reader is not in this build yet");
    if (!window.loadController()->isLoading())
        QSKIP("the generated trace loaded before the progress dialog appeared");
    QTest::mouseClick(window.progressDialog()->findChild<QPushButton *>(), Qt::LeftButton);
    QCOMPARE(cancelled.count(), 1);
    // The worker stops at its next chunk; its late result must not replace the trace.
    QTRY_COMPARE_WITH_TIMEOUT(window.loadController()->runningWorkers(), 0, 120000);
    QCOMPARE(shownSpy.count(), 0);
    QCOMPARE(errors.count(), 0);
    QCOMPARE(window.trace(), shown);
    QCOMPARE(window.statusText(), views::traceStatusText(*shown));
}

void TstMainWindow::supersededLoadIsDropped()
{
    MainWindow window;
    configure(window);
    std::atomic<bool> release{false};
    window.loadController()->setLoader(
        [&](const std::string &path, core::LoadControl *, const core::LoadOptions &)
            -> core::Result<LoadedTrace> {
            const QString name = QFileInfo(QString::fromStdString(path)).fileName();
            // The first load ignores cancellation and finishes late, with a bigger trace.
            if (name == QStringLiteral("first.json")) {
                while (!release)
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                return LoadedTrace{buildTrace(100), name};
            }
            return LoadedTrace{buildTrace(), name};
        });
    QSignalSpy shown(&window, &MainWindow::traceShown);
    window.openPath(m_temp.filePath(QStringLiteral("first.json")));
    window.openPath(m_temp.filePath(QStringLiteral("second.json")));
    QTRY_COMPARE(shown.count(), 1);
    QCOMPARE(window.displayName(), QStringLiteral("second.json"));
    release = true;
    QTRY_COMPARE(window.loadController()->runningWorkers(), 0);
    QTest::qWait(0);
    QCOMPARE(shown.count(), 1);
    QCOMPARE(window.displayName(), QStringLiteral("second.json"));
    QCOMPARE(window.trace()->eventCount(), quint64(6));
}

void TstMainWindow::recentFiles()
{
    MainWindow window;
    configure(window);
    window.loadController()->setLoader(fakeLoader());
    QStringList opened;
    for (int i = 0; i < 12; ++i) {
        const QString path = m_temp.filePath(QStringLiteral("r%1.json").arg(i));
        window.openPath(path);
        QCOMPARE(waitForLoad(window), QString());
        opened.prepend(path);
    }
    // Reopening moves an entry to the front instead of duplicating it.
    window.openPath(opened.at(5));
    QCOMPARE(waitForLoad(window), QString());
    QStringList expected = opened.mid(0, 10);
    expected.move(5, 0);
    QCOMPARE(window.recentFiles(), expected);
    // Written in the background, the list reaches the settings, for the next session.
    app::RecentFiles::flush();
    QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList(), expected);

    auto *menu = window.findChild<QMenu *>(QStringLiteral("RecentMenu"));
    QVERIFY(menu);
    QStringList texts;
    for (QAction *a : menu->actions()) {
        if (!a->isSeparator())
            texts << a->text();
    }
    QCOMPARE(texts.size(), 11);
    QCOMPARE(texts.first(), QDir::toNativeSeparators(expected.first()));
    QCOMPARE(texts.last(), QStringLiteral("&Clear List"));

    window.clearRecentFiles();
    QVERIFY(window.recentFiles().isEmpty());
    app::RecentFiles::flush();
    QVERIFY(!QSettings().contains(QStringLiteral("recentFiles")));
    QCOMPARE(menu->actions().size(), 1);
    QVERIFY(!menu->actions().front()->isEnabled());
}

void TstMainWindow::windowStateIsRestored()
{
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.tracksDock()->hide();
        window.resize(900, 600);
        window.close();
    }
    MainWindow again;
    QVERIFY(!again.tracksDock()->toggleViewAction()->isChecked());
    QCOMPARE(again.size(), QSize(900, 600));
}

void TstMainWindow::screenshotAfterLoad()
{
    MainWindow window;
    configure(window);
    window.loadController()->setLoader(fakeLoader());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString keep = qEnvironmentVariable("TRACEDESK_KEEP_SCREENSHOT");
    const QString shot = keep.isEmpty() ? m_temp.filePath(QStringLiteral("shot.png")) : keep;
    QSignalSpy finished(&window, &MainWindow::screenshotFinished);
    app::StartupOptions options;
    options.paths = QStringList{m_temp.filePath(QStringLiteral("pictured.xplane.pb"))};
    options.screenshotPath = shot;
    app::applyStartupOptions(window, options);
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(finished.front().at(0).toBool(), true);
    const QImage image(shot);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
}

void TstMainWindow::timelineAndDetailsWired()
{
    MainWindow window;
    configure(window);
    auto *stack = qobject_cast<QStackedWidget *>(window.centralWidget());
    QVERIFY(stack);
    QCOMPARE(stack->currentWidget(), window.placeholder());
    QCOMPARE(window.detailsDock()->objectName(), QStringLiteral("DetailsDock"));
    QCOMPARE(window.detailsDock()->widget(), window.detailsPane());
    QStringList viewEntries;
    for (QAction *menu : window.menuBar()->actions()) {
        if (menu->text() == QStringLiteral("&View")) {
            for (QAction *a : menu->menu()->actions())
                viewEntries << a->text();
        }
    }
    QVERIFY(viewEntries.contains(QStringLiteral("Tracks")));
    QVERIFY(viewEntries.contains(QStringLiteral("Details")));

    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const core::TracePtr trace = buildTrace();
    window.showTrace(trace, QStringLiteral("wired"));
    QCOMPARE(stack->currentWidget(), window.timeline());
    QCOMPARE(window.timeline()->trace(), trace);
    // Selecting in the timeline shows up in the Details dock: the 4 us slice on /host:CPU.
    window.timeline()->revealSlice(core::SliceRef{0, 0, 0});
    QVERIFY(window.detailsPane()->sliceText().contains(QStringLiteral("/host:CPU")));
    QVERIFY(window.detailsPane()->sliceText().simplified().contains(
        QStringLiteral("Duration 4.00 us")));

    // Another central widget takes the stack's place without deleting the timeline.
    auto *other = new QLabel(QStringLiteral("other"));
    window.setCentralContent(other);
    QCOMPARE(window.centralWidget(), other);
    QCOMPARE(window.timeline()->trace(), trace);
}

// "N warnings" in the status bar is a link to the list; transient messages are not hidden by
// the permanent summary (it no longer takes the whole bar).
void TstMainWindow::warningsOpenFromStatusBar()
{
    MainWindow window;
    configure(window);
    window.resize(1400, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    core::TracePtr trace = buildTrace();
    auto &info = const_cast<core::Trace &>(*trace).info;   // freshly built, not shared yet
    info.warnings = {"first odd record", "second odd record"};
    info.warningCount = 5;
    window.showTrace(trace, QStringLiteral("warned.json"));
    QVERIFY(window.statusText().endsWith(QStringLiteral("5 warnings")));
    auto *label = window.findChild<QLabel *>(QStringLiteral("TraceStatus"));
    QVERIFY(label);
    QVERIFY(label->text().contains(QStringLiteral("<a href")));
    emit label->linkActivated(QStringLiteral("warnings"));
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = window.findChild<QMessageBox *>(QStringLiteral("LoadWarnings"))));
    QVERIFY(box->text().contains(QStringLiteral("5 warning")));
    QVERIFY(box->informativeText().contains(QStringLiteral("first odd record")));
    QVERIFY(box->informativeText().contains(QStringLiteral("3 more")));
    box->close();

    // A transient message gets room next to the summary.
    window.statusBar()->showMessage(QStringLiteral("Saved the layout"));
    QTest::qWait(50);
    QVERIFY(label->width() < window.statusBar()->width() / 2);
}

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
