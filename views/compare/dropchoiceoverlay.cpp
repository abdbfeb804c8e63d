#include "views/compare/dropchoiceoverlay.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

namespace tracedesk::views {

DropChoiceOverlay::DropChoiceOverlay(QWidget *parent) : QWidget(parent)
{
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAcceptDrops(false);
    setFocusPolicy(Qt::NoFocus);
    hide();
    if (parent) {
        setGeometry(parent->rect());
        parent->installEventFilter(this);
    }
}

void DropChoiceOverlay::setCurrentName(const QString &name)
{
    m_currentName = name;
    update();
}

DropChoiceOverlay::Choice DropChoiceOverlay::choiceAt(QPoint pos) const
{
    if (!rect().contains(pos))
        return Choice::None;
    // Whole halves decide, not just the drawn zones: a drop always means something.
    return pos.x() < width() / 2 ? Choice::Open : Choice::Compare;
}

void DropChoiceOverlay::updateHover(QPoint pos)
{
    const Choice choice = choiceAt(pos);
    if (choice == m_highlighted)
        return;
    m_highlighted = choice;
    update();
    emit highlightChanged(choice);
}

void DropChoiceOverlay::showFor(QPoint pos)
{
    if (parentWidget())
        setGeometry(parentWidget()->rect());
    raise();
    show();
    updateHover(pos);
}

QRect DropChoiceOverlay::zoneRect(Choice choice) const
{
    if (choice == Choice::None)
        return {};
    const int margin = std::max(16, std::min(width(), height()) / 12);
    const int half = width() / 2;
    // The outer margins are full, the gap between the zones one margin wide.
    if (choice == Choice::Open)
        return QRect(0, 0, half, height()).adjusted(margin, margin, -margin / 2, -margin);
    return QRect(half, 0, width() - half, height()).adjusted(margin / 2, margin, -margin, -margin);
}

void DropChoiceOverlay::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), QColor(20, 24, 32, 190));
    const struct
    {
        Choice choice;
        QString title;
        QString subtitle;
    } zones[] = {
        {Choice::Open, tr("Open"), tr("Replace the current trace")},
        {Choice::Compare, tr("Compare with current"),
         m_currentName.isEmpty() ? tr("Show both, step-aligned")
                                 : tr("%1 as A, the dropped trace as B").arg(m_currentName)},
    };
    for (const auto &z : zones) {
        const QRect r = zoneRect(z.choice);
        const bool on = z.choice == m_highlighted;
        QPainterPath path;
        path.addRoundedRect(QRectF(r), 18, 18);
        p.fillPath(path, on ? QColor(58, 123, 213, 170) : QColor(255, 255, 255, 28));
        QPen pen(on ? QColor(170, 205, 255) : QColor(200, 200, 210, 150));
        pen.setWidthF(on ? 3.0 : 2.0);
        pen.setStyle(on ? Qt::SolidLine : Qt::DashLine);
        p.setPen(pen);
        p.drawPath(path);
        QFont title = font();
        title.setPointSizeF(std::max(14.0, r.height() / 14.0));
        title.setBold(true);
        p.setFont(title);
        p.setPen(Qt::white);
        const QRect top = r.adjusted(12, 0, -12, -r.height() / 2);
        p.drawText(top, Qt::AlignHCenter | Qt::AlignBottom | Qt::TextWordWrap, z.title);
        QFont sub = font();
        sub.setPointSizeF(std::max(10.0, r.height() / 30.0));
        p.setFont(sub);
        p.setPen(QColor(220, 225, 235));
        const QRect bottom = r.adjusted(16, r.height() / 2 + 10, -16, -10);
        p.drawText(bottom, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, z.subtitle);
    }
}

bool DropChoiceOverlay::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == parentWidget() && event->type() == QEvent::Resize)
        setGeometry(parentWidget()->rect());
    return QWidget::eventFilter(watched, event);
}

} // namespace tracedesk::views
