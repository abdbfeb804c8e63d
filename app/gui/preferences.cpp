#include "app/gui/preferences.h"

#include "app/gui/loadcontroller.h"
#include "core/io/cachetrim.h"
#include "core/io/storecache.h"

#include <QApplication>
#include <QPalette>
#include <QPointer>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace tracedesk::app {

namespace {

constexpr const char *kCacheDirKey = "preferences/cacheDir";
constexpr const char *kCacheLimitKey = "preferences/cacheLimitBytes";
constexpr const char *kThemeKey = "preferences/theme";

QString themeName(views::Theme theme)
{
    switch (theme) {
    case views::Theme::Light: return QStringLiteral("light");
    case views::Theme::Dark: return QStringLiteral("dark");
    case views::Theme::System: break;
    }
    return QStringLiteral("system");
}

views::Theme themeFromName(const QString &name)
{
    if (name == QLatin1String("light"))
        return views::Theme::Light;
    if (name == QLatin1String("dark"))
        return views::Theme::Dark;
    return views::Theme::System;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x30), base(0x1e, 0x1f, 0x22), text(0xdf, 0xe1, 0xe5);
    const QColor highlight(0x35, 0x74, 0xf0);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x8c, 0x8f, 0x94));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0x9e, 0xf8));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x45, 0x47, 0x4b));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3c, 0x40));
    p.setColor(QPalette::Mid, QColor(0x25, 0x26, 0x29));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x6f, 0x72, 0x77));
    return p;
}

} // namespace

views::Preferences loadPreferences()
{
    QSettings settings;
    views::Preferences p;
    p.cacheDir = settings.value(kCacheDirKey).toString();
    p.cacheLimitBytes = settings.value(kCacheLimitKey, quint64(core::LoadOptions().cacheLimitBytes))
                            .toULongLong();
    p.theme = themeFromName(settings.value(kThemeKey).toString());
    return p;
}

void savePreferences(const views::Preferences &preferences)
{
    QSettings settings;
    settings.setValue(kCacheDirKey, preferences.cacheDir);
    settings.setValue(kCacheLimitKey, preferences.cacheLimitBytes);
    settings.setValue(kThemeKey, themeName(preferences.theme));
}

QString cacheDirOf(const views::Preferences &preferences)
{
    return preferences.cacheDir.isEmpty() ? QString::fromStdString(core::defaultCacheDir())
                                          : preferences.cacheDir;
}

void applyPreferences(const views::Preferences &preferences, LoadController *loads,
                      bool withTheme)
{
    if (loads) {
        core::LoadOptions options = loads->options();
        options.cacheDir = preferences.cacheDir.toStdString();
        options.cacheLimitBytes = preferences.cacheLimitBytes;
        loads->setOptions(options);
    }
    if (withTheme)
        applyTheme(preferences.theme);
}

void applyTheme(views::Theme theme)
{
    // What the application started with, taken before the first change.
    static const QString systemStyle = QApplication::style()->name();
    static const QPalette systemPalette = QApplication::palette();
    switch (theme) {
    case views::Theme::System:
        QApplication::setStyle(QStyleFactory::create(systemStyle));
        QApplication::setPalette(systemPalette);
        break;
    case views::Theme::Light:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case views::Theme::Dark:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
        break;
    }
}

void showPreferences(QWidget *parent, LoadController *loads)
{
    const views::Preferences before = loadPreferences();
    views::PreferencesDialog dialog(parent);
    dialog.setPreferences(before);
    dialog.setDefaultCacheDir(QString::fromStdString(core::defaultCacheDir()));
    // A cache folder holds a few files per profile opened: measuring or clearing it is quick.
    auto showUsage = [&dialog] {
        dialog.setCacheUsage(core::cacheSizeBytes(cacheDirOf(dialog.preferences()).toStdString()));
    };
    showUsage();
    QObject::connect(&dialog, &views::PreferencesDialog::clearCacheRequested, &dialog, [&] {
        core::clearCache(cacheDirOf(dialog.preferences()).toStdString());
        showUsage();
    });
    if (dialog.exec() != QDialog::Accepted)
        return;
    const views::Preferences after = dialog.preferences();
    savePreferences(after);
    applyPreferences(after, loads, after.theme != before.theme);
    if (after.cacheLimitBytes > 0)   // a lowered limit holds from now on
        core::trimCache(cacheDirOf(after).toStdString(), after.cacheLimitBytes);
}

} // namespace tracedesk::app
