// CaptureDialog under xvfb against an in-process profiler server: fill the form, capture, see
// captureSaved with a run dir holding the served file; Test connection; Cancel; form errors;
// remembered values. Set TRACEDESK_SHOTS=<dir> to save screenshots of the dialog.

#include "views/capture/capturedialog.h"

#include "core/capture/recordedprofilerserver.h"
#include "core/generate/generator.h"
#include "core/support/refusingport.h"

#include <QComboBox>
#include <QDirIterator>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

using tracedesk::views::CaptureDialog;
namespace capture = tracedesk::core::capture;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList filesUnder(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << it.next();
    return out;
}

void shot(QWidget *w, const QString &name)
{
    const QString dir = qEnvironmentVariable("TRACEDESK_SHOTS");
    if (!dir.isEmpty())
        w->grab().save(dir + "/" + name + ".png");
}

template<typename T>
T *child(QWidget &w, const char *name)
{
    T *c = w.findChild<T *>(name);
    if (!c)
        qFatal("no child %s", name);
    return c;
}

} // namespace

class TestCaptureDialog : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_xspace;
    std::unique_ptr<capture::RecordedProfilerServer> m_server;

    void fill(CaptureDialog &d, const QString &address, int durationMs, const QString &logdir)
    {
        child<QLineEdit>(d, "addresses")->setText(address);
        child<QSpinBox>(d, "durationMs")->setValue(durationMs);
        child<QSpinBox>(d, "delayMs")->setValue(0);
        child<QComboBox>(d, "hostLevel")->setCurrentIndex(3);
        child<QComboBox>(d, "pythonLevel")->setCurrentIndex(1);
        child<QSpinBox>(d, "retries")->setValue(0);
        child<QPlainTextEdit>(d, "advancedOptions")->setPlainText("profile_subprocesses=true\n");
        child<QLineEdit>(d, "logdir")->setText(logdir);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().remove("capture");
        QVERIFY(m_dir.isValid());
        m_xspace = m_dir.filePath("served.xplane.pb");
        tracedesk::core::GeneratorOptions g;
        g.events = 2000;
        QVERIFY(tracedesk::core::generateTrace(g, m_xspace.toStdString()).ok());
        capture::ServeOptions o;
        o.xspacePath = m_xspace.toStdString();
        m_server = std::make_unique<capture::RecordedProfilerServer>(o);
        QVERIFY(m_server->start().ok());
    }

    void cleanupTestCase() { m_server.reset(); }

    void captureFromTheForm()
    {
        CaptureDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        const QString logdir = m_dir.filePath("logs");
        const QString address = QString::fromStdString(m_server->address());
        fill(d, address, 400, logdir);
        QSignalSpy saved(&d, &CaptureDialog::captureSaved);
        QTest::mouseClick(child<QPushButton>(d, "capture"), Qt::LeftButton);
        QVERIFY(d.isCapturing());
        QVERIFY(!child<QPushButton>(d, "capture")->isEnabled());
        QVERIFY(child<QPushButton>(d, "stopEarly")->isEnabled());
        QCOMPARE(child<QPushButton>(d, "cancel")->text(), QString("Cancel"));
        auto *table = child<QTableWidget>(d, "progressTable");
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 0)->text(), address);
        if (!qEnvironmentVariableIsEmpty("TRACEDESK_SHOTS")) {
            auto *bar = qobject_cast<QProgressBar *>(table->cellWidget(0, 1));
            QTRY_VERIFY(bar->format().startsWith("Capturing") || !saved.isEmpty());
            shot(&d, "capturedialog-progress");
        }
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 30000);
        const QString runDir = saved.at(0).at(0).toString();
        QCOMPARE(QFileInfo(runDir).path(), logdir + "/plugins/profile");
        const QString file = runDir + "/127.0.0.1_" + QString::number(m_server->port()) +
                             ".xplane.pb";
        QCOMPARE(readAll(file), readAll(m_xspace));
        QCOMPARE(filesUnder(logdir), QStringList{file});
        QCOMPARE(d.lastRunDir(), runDir);
        QVERIFY(!d.isCapturing());
        QVERIFY(child<QPushButton>(d, "capture")->isEnabled());
        const QString results = child<QTextBrowser>(d, "results")->toPlainText();
        QVERIFY(results.contains(address + ": saved"));
        QVERIFY(results.contains(file));
        auto *bar = qobject_cast<QProgressBar *>(table->cellWidget(0, 1));
        QCOMPARE(bar->value(), 1000);
        shot(&d, "capturedialog-done");

        // The form comes back as it was left.
        CaptureDialog again;
        QCOMPARE(child<QLineEdit>(again, "addresses")->text(), address);
        QCOMPARE(child<QSpinBox>(again, "durationMs")->value(), 400);
        QCOMPARE(child<QComboBox>(again, "hostLevel")->currentIndex(), 3);
        QCOMPARE(child<QComboBox>(again, "pythonLevel")->currentIndex(), 1);
        QCOMPARE(child<QSpinBox>(again, "retries")->value(), 0);
        QCOMPARE(child<QLineEdit>(again, "logdir")->text(), logdir);
        QCOMPARE(child<QPlainTextEdit>(again, "advancedOptions")->toPlainText(),
                 QString("profile_subprocesses=true\n"));
    }

    void testConnection()
    {
        CaptureDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        auto *status = child<QLabel>(d, "connectionStatus");
        child<QLineEdit>(d, "addresses")
            ->setText(QString::fromStdString(m_server->address()));
        QTest::mouseClick(child<QPushButton>(d, "testConnection"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains("A gRPC server answered"), 10000);
        shot(&d, "capturedialog-testconnection");

        // A port nothing listens on, held so nothing can start listening there meanwhile.
        const RefusingPort refusing;
        QVERIFY(refusing.port() != 0);
        child<QLineEdit>(d, "addresses")->setText(QString::fromStdString(refusing.address()));
        QTRY_VERIFY(child<QPushButton>(d, "testConnection")->isEnabled());
        QTest::mouseClick(child<QPushButton>(d, "testConnection"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains("Cannot reach"), 10000);

        child<QLineEdit>(d, "addresses")->setText("no-port-here");
        QTRY_VERIFY(child<QPushButton>(d, "testConnection")->isEnabled());
        QTest::mouseClick(child<QPushButton>(d, "testConnection"), Qt::LeftButton);
        QVERIFY(status->text().contains("has no port"));
    }

    void cancelDuringCapture()
    {
        CaptureDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        const QString logdir = m_dir.filePath("cancelled");
        fill(d, QString::fromStdString(m_server->address()), 600000, logdir);
        QSignalSpy saved(&d, &CaptureDialog::captureSaved);
        QSignalSpy finished(&d, &CaptureDialog::captureFinished);
        QTest::mouseClick(child<QPushButton>(d, "capture"), Qt::LeftButton);
        QTRY_COMPARE(m_server->activeCalls(), 1);
        QTest::mouseClick(child<QPushButton>(d, "cancel"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(saved.count(), 0);
        QCOMPARE(filesUnder(logdir), QStringList());
        QVERIFY(child<QTextBrowser>(d, "results")->toPlainText().contains("cancelled"));
        QVERIFY(d.isVisible());   // Cancel during a capture does not close the dialog
    }

    void formErrors()
    {
        CaptureDialog d;
        child<QLineEdit>(d, "addresses")->setText("");
        QTest::mouseClick(child<QPushButton>(d, "capture"), Qt::LeftButton);
        QVERIFY(!d.isCapturing());
        QVERIFY(child<QTextBrowser>(d, "results")->toPlainText().contains("no service address"));
        child<QLineEdit>(d, "addresses")->setText("h:1");
        child<QPlainTextEdit>(d, "advancedOptions")->setPlainText("host_tracer_level=9");
        QTest::mouseClick(child<QPushButton>(d, "capture"), Qt::LeftButton);
        QVERIFY(!d.isCapturing());
        QVERIFY(child<QTextBrowser>(d, "results")->toPlainText().contains("host_tracer_level=9"));
    }
};

QTEST_MAIN(TestCaptureDialog)
#include "tst_capturedialog.moc"
