#include "views/timeline/trackprefs.h"

#include "views/common/qtconvert.h"

#include <QCryptographicHash>
#include <QHash>
#include <QSettings>

#include <algorithm>

namespace tracedesk::views {

namespace {

const QString kPinnedKey = QStringLiteral("#pinned");

// Keys for names that may repeat: "name\tN" where N counts earlier uses of the same name.
QStringList numbered(const QStringList &names)
{
    QHash<QString, int> seen;
    QStringList keys;
    keys.reserve(names.size());
    for (const QString &name : names)
        keys << name + QLatin1Char('\t') + QString::number(seen[name]++);
    return keys;
}

} // namespace

TrackPrefs::TrackPrefs(const core::Trace &trace)
{
    if (trace.info.sources.empty())
        return;
    // Sorted, so a multi-host directory keeps its key whatever order the files were listed in.
    QStringList sources;
    for (const std::string &s : trace.info.sources)
        sources << QString::fromStdString(s);
    sources.sort();
    const QByteArray hash = QCryptographicHash::hash(sources.join(QLatin1Char('\n')).toUtf8(),
                                                     QCryptographicHash::Sha1);
    m_group = QStringLiteral("TimelineTracks/") + QString::fromLatin1(hash.toHex());

    QStringList planes;
    for (const core::Plane &p : trace.planes)
        planes << toQString(trace.string(p.name)) + QLatin1Char('\t')
                      + toQString(trace.string(p.host));
    m_planeKeys = numbered(planes);
    QStringList tracks;
    for (const core::Track &t : trace.tracks)
        tracks << m_planeKeys.value(qsizetype(t.plane)) + QLatin1Char('\t')
                      + toQString(trace.string(t.name));
    m_trackKeys = numbered(tracks);
}

TrackState TrackPrefs::load() const
{
    TrackState state;
    if (m_group.isEmpty())
        return state;
    QSettings settings;
    settings.beginGroup(m_group);
    auto index = [](const QStringList &keys, const QString &key) {
        return uint32_t(keys.indexOf(key));   // -1 (not found) becomes an invalid index
    };
    for (const QString &key : settings.value(QStringLiteral("hidden")).toStringList()) {
        if (const uint32_t t = index(m_trackKeys, key); t < uint32_t(m_trackKeys.size()))
            state.hidden.insert(t);
    }
    for (const QString &key : settings.value(QStringLiteral("pinned")).toStringList()) {
        const uint32_t t = index(m_trackKeys, key);
        if (t < uint32_t(m_trackKeys.size())
            && std::find(state.pinned.begin(), state.pinned.end(), t) == state.pinned.end())
            state.pinned.push_back(t);
    }
    for (const QString &key : settings.value(QStringLiteral("collapsed")).toStringList()) {
        if (key == kPinnedKey)
            state.collapsed.insert(kPinnedSection);
        else if (const uint32_t p = index(m_planeKeys, key); p < uint32_t(m_planeKeys.size()))
            state.collapsed.insert(p);
    }
    return state;
}

void TrackPrefs::save(const TrackState &state) const
{
    if (m_group.isEmpty())
        return;
    QSettings settings;
    if (state == TrackState{}) {
        settings.remove(m_group);   // nothing changed from the default: leave no trace behind
        return;
    }
    QStringList hidden, pinned, collapsed;
    for (uint32_t t : state.hidden)
        hidden << m_trackKeys.value(qsizetype(t));
    for (uint32_t t : state.pinned)
        pinned << m_trackKeys.value(qsizetype(t));
    for (uint32_t p : state.collapsed)
        collapsed << (p == kPinnedSection ? kPinnedKey : m_planeKeys.value(qsizetype(p)));
    hidden.removeAll(QString());
    pinned.removeAll(QString());
    collapsed.removeAll(QString());
    settings.beginGroup(m_group);
    settings.setValue(QStringLiteral("hidden"), hidden);
    settings.setValue(QStringLiteral("pinned"), pinned);
    settings.setValue(QStringLiteral("collapsed"), collapsed);
}

} // namespace tracedesk::views
