#pragma once

// PreferencesDialog: the application's settings a user may change — where the store cache
// lives, how large it may grow, clearing it, and the colour theme. It only shows and edits a
// Preferences value; the app reads and writes the settings, measures and clears the cache and
// applies the theme (app/gui/preferences.h).

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace tracedesk::views {

enum class Theme { System, Light, Dark };

struct Preferences
{
    QString cacheDir;             // empty: the default location
    quint64 cacheLimitBytes = 0;  // 0: no limit
    Theme theme = Theme::System;

    friend bool operator==(const Preferences &, const Preferences &) = default;
};

class PreferencesDialog : public QDialog
{
    Q_OBJECT

public:
    explicit PreferencesDialog(QWidget *parent = nullptr);

    void setPreferences(const Preferences &preferences);
    // What the dialog shows now. The limit is edited in whole GiB.
    Preferences preferences() const;
    // Shown as the cache folder's placeholder when no folder is chosen.
    void setDefaultCacheDir(const QString &dir);
    // The cache's current size, shown beside the limit.
    void setCacheUsage(quint64 bytes);
    QString cacheUsageText() const;

signals:
    void clearCacheRequested();

private:
    void browse();

    QLineEdit *m_cacheDir = nullptr;
    QSpinBox *m_limitGiB = nullptr;
    QLabel *m_usage = nullptr;
    QComboBox *m_theme = nullptr;
};

} // namespace tracedesk::views
