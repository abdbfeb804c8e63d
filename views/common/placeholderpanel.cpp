#include "views/common/placeholderpanel.h"

#include "views/common/tracesummary.h"

#include <QLabel>
#include <QVBoxLayout>

namespace tracedesk::views {

PlaceholderPanel::PlaceholderPanel(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("PlaceholderPanel"));
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, pal.color(QPalette::Base));
    setPalette(pal);

    m_title = new QLabel(this);
    m_title->setAlignment(Qt::AlignCenter);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setBold(true);
    m_title->setFont(titleFont);

    m_detail = new QLabel(this);
    m_detail->setAlignment(Qt::AlignCenter);
    // The list of formats one can open is long; wrapped, it never sets the window's width.
    m_detail->setWordWrap(true);
    QFont detailFont = m_detail->font();
    detailFont.setPointSizeF(detailFont.pointSizeF() * 1.2);
    m_detail->setFont(detailFont);

    m_hint = new QLabel(this);
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    m_hint->setForegroundRole(QPalette::PlaceholderText);

    auto *layout = new QVBoxLayout(this);
    layout->addStretch(2);
    layout->addWidget(m_title);
    layout->addSpacing(8);
    layout->addWidget(m_detail);
    layout->addSpacing(16);
    layout->addWidget(m_hint);
    layout->addStretch(3);

    setTrace(nullptr, {});
}

void PlaceholderPanel::setTrace(const core::TracePtr &trace, const QString &displayName)
{
    if (!trace) {
        m_title->setText(tr("No profile open"));
        m_detail->setText(tr("Open an XSpace profile (.xplane.pb), a Chrome trace (.json, "
                             ".json.gz, .json.zst), an Nsight Systems export (.sqlite) or a "
                             "run folder."));
        m_hint->setText(tr("Use File > Open, or drop a file or folder onto this window."));
        return;
    }
    m_title->setText(displayName);
    m_detail->setText(traceSpanText(*trace));
    m_hint->setText(tr("The timeline will be shown here. Browse hosts, planes and tracks in "
                       "the Tracks panel."));
}

void PlaceholderPanel::showNote(const QString &title, const QString &detail, const QString &hint)
{
    m_title->setText(title);
    m_detail->setText(detail);
    m_hint->setText(hint);
}

QString PlaceholderPanel::hintText() const
{
    return m_hint->text();
}

QString PlaceholderPanel::titleText() const
{
    return m_title->text();
}

QString PlaceholderPanel::detailText() const
{
    return m_detail->text();
}

} // namespace tracedesk::views
