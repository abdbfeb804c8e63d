// Preferences: the dialog shows and returns what it was given, the settings round-trip through
// QSettings (isolated in a temporary folder), the cache settings reach the loader's options,
// clearing the cache empties its folder, and the themes change the application's palette.

#include "app/gui/loadcontroller.h"
#include "app/gui/preferences.h"
#include "core/io/cachetrim.h"

#include <QApplication>
#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tracedesk;
using namespace tracedesk::app;
using views::Preferences;
using views::Theme;

class TestPreferences : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void dialogRoundTrip();
    void settingsRoundTrip();
    void cacheSettingsReachLoader();
    void clearCacheButton();
    void themesChangePalette();
};

void TestPreferences::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TraceDeskPreferencesTest"));
    QCoreApplication::setApplicationName(QStringLiteral("TraceDeskPreferencesTest"));
    QSettings().clear();
}

void TestPreferences::dialogRoundTrip()
{
    views::PreferencesDialog dialog;
    const Preferences p{QStringLiteral("/some/cache"), quint64(3) << 30, Theme::Dark};
    dialog.setPreferences(p);
    QCOMPARE(dialog.preferences(), p);
    QCOMPARE(dialog.findChild<QSpinBox *>("CacheLimit")->value(), 3);
    // No limit shows as such and comes back as 0.
    dialog.setPreferences({QString(), 0, Theme::System});
    QCOMPARE(dialog.findChild<QSpinBox *>("CacheLimit")->text(), QStringLiteral("No limit"));
    QCOMPARE(dialog.preferences().cacheLimitBytes, quint64(0));
    dialog.setCacheUsage(quint64(5) * 1024 * 1024);
    QVERIFY(dialog.cacheUsageText().contains("5"));
}

void TestPreferences::settingsRoundTrip()
{
    QSettings().clear();
    // Nothing saved yet: the loader's default limit, the default folder, the system theme.
    const Preferences fresh = loadPreferences();
    QCOMPARE(fresh.cacheLimitBytes, quint64(core::LoadOptions().cacheLimitBytes));
    QVERIFY(fresh.cacheDir.isEmpty());
    QCOMPARE(fresh.theme, Theme::System);
    const Preferences p{QStringLiteral("/elsewhere"), quint64(7) << 30, Theme::Light};
    savePreferences(p);
    QCOMPARE(loadPreferences(), p);
}

void TestPreferences::cacheSettingsReachLoader()
{
    LoadController loads;
    applyPreferences({QStringLiteral("/cache/here"), 12345, Theme::System}, &loads, false);
    QCOMPARE(loads.options().cacheDir, std::string("/cache/here"));
    QCOMPARE(loads.options().cacheLimitBytes, uint64_t(12345));
    QCOMPARE(cacheDirOf({QStringLiteral("/cache/here"), 0, Theme::System}),
             QStringLiteral("/cache/here"));
    QVERIFY(!cacheDirOf({}).isEmpty());   // the default folder
}

void TestPreferences::clearCacheButton()
{
    views::PreferencesDialog dialog;
    QSignalSpy cleared(&dialog, &views::PreferencesDialog::clearCacheRequested);
    dialog.findChild<QPushButton *>("ClearCache")->click();
    QCOMPARE(cleared.count(), 1);
    // What the app does on that signal: every store of the folder goes, other files stay.
    QTemporaryDir dir;
    std::ofstream((dir.path() + "/a.tdstore").toStdString()) << "x";
    std::ofstream((dir.path() + "/notes.txt").toStdString()) << "x";
    core::clearCache(dir.path().toStdString());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"notes.txt"});
}

void TestPreferences::themesChangePalette()
{
    applyTheme(Theme::Dark);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 100);
    QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
    applyTheme(Theme::Light);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 150);
    applyTheme(Theme::System);
}

QTEST_MAIN(TestPreferences)
#include "tst_preferences.moc"
