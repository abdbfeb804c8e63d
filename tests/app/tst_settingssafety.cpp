// The window's settings (recent files, window state) survive the process being killed in the
// middle of writing them: a writer process rewrites them as fast as it can and is SIGKILLed at
// random moments; each time, what is on disk must read back without error and be one whole
// generation, never a mix of two or a truncated file.

#include <QCoreApplication>
#include <QDir>
#include <QProcess>
#include <QRandomGenerator>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>
#include <cstdio>

namespace {

constexpr const char *kWriterEnv = "TRACEDESK_SETTINGS_WRITER_DIR";

// The keys MainWindow writes (app/gui/mainwindow.cpp).
constexpr const char *kRecentKey = "recentFiles";
constexpr const char *kGeometryKey = "window/geometry";
constexpr const char *kGenerationKey = "test/generation";

QStringList recentFor(int generation)
{
    QStringList files;
    for (int i = 0; i < 10; ++i)
        files << QStringLiteral("/data/profiles/run_%1/host_%2.xplane.pb").arg(generation).arg(i);
    return files;
}

// Big enough that a write takes a while, so kills land mid-write.
QByteArray geometryFor(int generation)
{
    return QByteArray(256 * 1024, char('a' + generation % 26));
}

void useSettingsDir(const QString &dir)
{
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDesk"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDesk"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir);
}

// Writer mode: rewrite every key as one generation, sync, report it; forever.
int runWriter(const QString &dir)
{
    useSettingsDir(dir);
    for (int generation = 1;; ++generation) {
        QSettings settings;
        settings.setValue(kRecentKey, recentFor(generation));
        settings.setValue(kGeometryKey, geometryFor(generation));
        settings.setValue(kGenerationKey, generation);
        settings.sync();
        if (settings.status() != QSettings::NoError)
            return 1;
        std::printf("%d\n", generation);
        std::fflush(stdout);
    }
}

} // namespace

class TestSettingsSafety : public QObject
{
    Q_OBJECT

private slots:
    void killDuringWriteKeepsAWholeGeneration()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        useSettingsDir(dir.path());

        int lastSeen = 0;
        for (int round = 0; round < 12; ++round) {
            QProcess writer;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(kWriterEnv, dir.path());
            writer.setProcessEnvironment(env);
            writer.start(QCoreApplication::applicationFilePath(), {});
            QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));
            // Let it finish at least one generation, then kill it a random moment later. Each
            // generation fsyncs a file: on a busy disk (or under a sanitizer) the first one can
            // take many seconds, so the wait is generous; it returns as soon as it is done.
            QVERIFY2(writer.waitForReadyRead(180000), "the writer synced no generation in 3 min");
            QThread::msleep(QRandomGenerator::global()->bounded(1, 40));
            ::kill(pid_t(writer.processId()), SIGKILL);
            QVERIFY(writer.waitForFinished(10000));
            const QList<QByteArray> reported = writer.readAllStandardOutput().split('\n');
            int lastReported = 0;
            for (const QByteArray &line : reported) {
                if (!line.trimmed().isEmpty())
                    lastReported = line.trimmed().toInt();
            }
            QVERIFY(lastReported >= 1);

            QSettings settings;
            QCOMPARE(settings.status(), QSettings::NoError);
            const int generation = settings.value(kGenerationKey).toInt();
            // What was synced stays; a generation in flight may or may not have landed.
            QVERIFY2(generation >= lastReported && generation <= lastReported + 1,
                     qPrintable(QStringLiteral("on disk %1, last synced %2")
                                    .arg(generation)
                                    .arg(lastReported)));
            QCOMPARE(settings.value(kRecentKey).toStringList(), recentFor(generation));
            QCOMPARE(settings.value(kGeometryKey).toByteArray(), geometryFor(generation));
            lastSeen = generation;
        }
        QVERIFY(lastSeen >= 1);
    }
};

int main(int argc, char **argv)
{
    const QByteArray writerDir = qgetenv(kWriterEnv);
    QCoreApplication app(argc, argv);
    if (!writerDir.isEmpty())
        return runWriter(QString::fromLocal8Bit(writerDir));
    TestSettingsSafety test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_settingssafety.moc"
