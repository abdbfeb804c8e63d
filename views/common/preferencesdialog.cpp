#include "views/common/preferencesdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tracedesk::views {

namespace {
constexpr quint64 kGiB = quint64(1) << 30;
}

PreferencesDialog::PreferencesDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Preferences"));
    auto *form = new QFormLayout;

    m_cacheDir = new QLineEdit;
    m_cacheDir->setObjectName(QStringLiteral("CacheDir"));
    auto *browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, &PreferencesDialog::browse);
    auto *dirRow = new QHBoxLayout;
    dirRow->addWidget(m_cacheDir, 1);
    dirRow->addWidget(browse);
    form->addRow(tr("Cache folder:"), dirRow);

    m_limitGiB = new QSpinBox;
    m_limitGiB->setObjectName(QStringLiteral("CacheLimit"));
    m_limitGiB->setRange(0, 100000);
    m_limitGiB->setSuffix(tr(" GiB"));
    m_limitGiB->setSpecialValueText(tr("No limit"));
    m_limitGiB->setToolTip(tr("Opened profiles are cached for fast reopening; past this size the "
                              "least recently used ones are removed."));
    m_usage = new QLabel;
    auto *clear = new QPushButton(tr("Clear Cache"));
    clear->setObjectName(QStringLiteral("ClearCache"));
    connect(clear, &QPushButton::clicked, this, &PreferencesDialog::clearCacheRequested);
    auto *limitRow = new QHBoxLayout;
    limitRow->addWidget(m_limitGiB);
    limitRow->addWidget(m_usage, 1);
    limitRow->addWidget(clear);
    form->addRow(tr("Cache size limit:"), limitRow);

    m_theme = new QComboBox;
    m_theme->setObjectName(QStringLiteral("Theme"));
    m_theme->addItem(tr("System"), int(Theme::System));
    m_theme->addItem(tr("Light"), int(Theme::Light));
    m_theme->addItem(tr("Dark"), int(Theme::Dark));
    form->addRow(tr("Theme:"), m_theme);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    setMinimumWidth(560);
}

void PreferencesDialog::setPreferences(const Preferences &preferences)
{
    m_cacheDir->setText(preferences.cacheDir);
    // Rounded up, so a limit set elsewhere in bytes is never shown as "No limit".
    m_limitGiB->setValue(int((preferences.cacheLimitBytes + kGiB - 1) / kGiB));
    m_theme->setCurrentIndex(m_theme->findData(int(preferences.theme)));
}

Preferences PreferencesDialog::preferences() const
{
    Preferences p;
    p.cacheDir = m_cacheDir->text().trimmed();
    p.cacheLimitBytes = quint64(m_limitGiB->value()) * kGiB;
    p.theme = Theme(m_theme->currentData().toInt());
    return p;
}

void PreferencesDialog::setDefaultCacheDir(const QString &dir)
{
    m_cacheDir->setPlaceholderText(dir);
}

void PreferencesDialog::setCacheUsage(quint64 bytes)
{
    m_usage->setText(tr("%1 used").arg(QLocale().formattedDataSize(qint64(bytes))));
}

QString PreferencesDialog::cacheUsageText() const
{
    return m_usage->text();
}

void PreferencesDialog::browse()
{
    const QString start = m_cacheDir->text().isEmpty() ? m_cacheDir->placeholderText()
                                                        : m_cacheDir->text();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Cache Folder"), start);
    if (!dir.isEmpty())
        m_cacheDir->setText(dir);
}

} // namespace tracedesk::views
