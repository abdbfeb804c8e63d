#include "app/gui/windowlayout.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QCursor>
#include <QEvent>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScreen>
#include <QTextEdit>

namespace tracedesk::app {

QRect fittedGeometry(const QRect &available, double share)
{
    const QSize size(int(available.width() * share), int(available.height() * share));
    QRect rect(QPoint(0, 0), size);
    rect.moveCenter(available.center());
    return rect;
}

QScreen *openingScreen()
{
    if (QScreen *screen = QGuiApplication::screenAt(QCursor::pos()))
        return screen;
    return QGuiApplication::primaryScreen();
}

PointerFocus::PointerFocus(QWidget *target)
    : QObject(target)
    , m_target(target)
{
    target->installEventFilter(this);
}

namespace {

bool takesText(const QWidget *w)
{
    if (!w)
        return false;
    if (const auto *edit = qobject_cast<const QLineEdit *>(w))
        return !edit->isReadOnly();
    if (const auto *combo = qobject_cast<const QComboBox *>(w))
        return combo->isEditable();
    if (const auto *text = qobject_cast<const QTextEdit *>(w))
        return !text->isReadOnly();
    if (const auto *plain = qobject_cast<const QPlainTextEdit *>(w))
        return !plain->isReadOnly();
    return qobject_cast<const QAbstractSpinBox *>(w) != nullptr;
}

} // namespace

TimelineKeys::TimelineKeys(QWidget *target)
    : QObject(target)
    , m_target(target)
{
    QApplication::instance()->installEventFilter(this);
}

bool TimelineKeys::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::KeyPress)
        return QObject::eventFilter(watched, event);
    auto *w = qobject_cast<QWidget *>(watched);
    auto *key = static_cast<QKeyEvent *>(event);
    const bool navigation = key->key() == Qt::Key_W || key->key() == Qt::Key_A ||
                            key->key() == Qt::Key_S || key->key() == Qt::Key_D;
    if (!navigation || (key->modifiers() & ~Qt::ShiftModifier) != Qt::NoModifier || !w ||
        w != QApplication::focusWidget() || w->window() != m_target->window() ||
        w == m_target || m_target->isAncestorOf(w) || !m_target->isVisible() || takesText(w))
        return QObject::eventFilter(watched, event);
    QKeyEvent copy(QEvent::KeyPress, key->key(), key->modifiers(), key->text(),
                   key->isAutoRepeat(), ushort(key->count()));
    QCoreApplication::sendEvent(m_target, &copy);
    return true;
}

bool PointerFocus::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_target && event->type() == QEvent::Enter && m_target->isActiveWindow() &&
        !m_target->hasFocus() && !takesText(QApplication::focusWidget()))
        m_target->setFocus(Qt::MouseFocusReason);
    return QObject::eventFilter(watched, event);
}

} // namespace tracedesk::app
